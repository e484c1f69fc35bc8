// Variants files (base: + override_* / zip_override_*), selectors, FILE:SELECTOR and --set/--unset
// on them, as srtctl 2.0 expands them (reference/srt-slurm-v2.md sections 5 and 6).
#include <catch2/catch.hpp>

#include <set>

#include "srt/variants.hpp"

namespace {

// A v1-layout base that loads today (1P1D ATOM), and sections exercising every merge rule.
const std::string kFile =
    "schema: 1\n"                                                      // 1
    "base:\n"                                                          // 2
    "  name: t\n"                                                      // 3
    "  model: {path: m, container: c}\n"                               // 4
    "  resources:\n"                                                   // 5
    "    gpus_per_node: 8\n"                                           // 6
    "    prefill_nodes: 1\n"                                           // 7
    "    decode_nodes: 1\n"                                            // 8
    "    prefill_workers: 1\n"                                         // 9
    "    decode_workers: 1\n"                                          // 10
    "  backend: {type: atom}\n"                                        // 11
    "  frontend: {type: atomesh, enable_multiple_frontends: false}\n"  // 12
    "  extra_mount: [/a:/a, /b:/b]\n"                                  // 13
    "override_b:\n"                                                    // 14
    "  resources:\n"                                                   // 15
    "    prefill_nodes: 2\n"                                           // 16
    "    prefill_workers: 2\n"                                         // 17
    "  extra_mount: [/c:/c]\n"                                         // 18
    "override_a:\n"                                                    // 19
    "  name: custom\n"                                                 // 20
    "  resources: {}\n"                                                // 21
    "  frontend:\n"                                                    // 22
    "  setup_script: s.sh\n"                                           // 23
    "zip_override_z:\n"                                                // 24
    "  resources:\n"                                                   // 25
    "    decode_nodes: [1, 3]\n"                                       // 26
    "    decode_workers: [1, 3]\n"                                     // 27
    "    gpus_per_node: [8]\n"                                         // 28
    "  extra_mount: [[/x:/x], [/y:/y, /w:/w]]\n"                       // 29
    "  setup_script: z.sh\n";                                          // 30

srt::Document file_doc(const std::string& text = kFile) { return srt::parse_yaml(text, "v.yaml"); }

std::vector<std::string> selectors(const std::vector<srt::Variant>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.selector);
  return out;
}

std::vector<std::string> names(const std::vector<srt::Variant>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.name);
  return out;
}

std::string expand_error(const std::string& text, const std::string& selector = "") {
  try {
    srt::expand_variants(file_doc(text), selector);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

const std::string kSmallBase = "base: {name: t, resources: {prefill_nodes: 1}}\n";

}  // namespace

TEST_CASE("variants: overrides sorted by key, then zip groups - base excluded - srtctl's names", "[variants]") {
  const auto doc = file_doc();
  REQUIRE(srt::is_variants_document(doc));
  CHECK_FALSE(srt::is_variants_document(srt::parse_yaml("name: x\n", "r.yaml")));
  const auto vs = srt::expand_variants(doc);
  CHECK(selectors(vs) == std::vector<std::string>{"override_a", "override_b", "zip_override_z[0]", "zip_override_z[1]"});
  CHECK(names(vs) == std::vector<std::string>{"custom", "t_b", "t_z_0", "t_z_1"});
  CHECK(vs[0].suffix == "a");
  CHECK(vs[3].suffix == "z_1");
  for (const auto& v : vs) {
    CHECK(v.doc.root["schema"] == srt::Json(1));  // the top-level schema: beside base: goes into each
    CHECK(v.doc.file == "v.yaml");
    CHECK_FALSE(v.doc.root.contains("base"));
  }
  // Without a base name srtctl says "unnamed".
  const auto unnamed = srt::expand_variants(file_doc("base: {x: 1}\noverride_q: {x: 2}\n"));
  CHECK(unnamed.at(0).name == "unnamed_q");
  // base and no sections: nothing (srtctl submits nothing).
  CHECK(srt::expand_variants(file_doc(kSmallBase)).empty());
}

TEST_CASE("variants: override merge rules", "[variants]") {
  const auto vs = srt::expand_variants(file_doc());
  const srt::Json& a = vs[0].doc.root;  // override_a
  const srt::Json& b = vs[1].doc.root;  // override_b
  // dicts merge recursively: b keeps the base's other resources
  CHECK(b["resources"]["prefill_nodes"] == 2);
  CHECK(b["resources"]["decode_nodes"] == 1);
  CHECK(b["resources"]["gpus_per_node"] == 8);
  // lists replace
  CHECK(b["extra_mount"] == srt::Json::array({"/c:/c"}));
  // `resources: {}` merges nothing; `frontend:` with no value deletes the whole block; scalars add
  CHECK(a["resources"]["prefill_nodes"] == 1);
  CHECK(a["resources"].size() == 5);
  CHECK_FALSE(a.contains("frontend"));
  CHECK(a["setup_script"] == "s.sh");
  CHECK(a["name"] == "custom");
  // a null inside a nested mapping deletes just that key
  const auto del = srt::expand_variants(file_doc(kSmallBase + "override_d: {resources: {prefill_nodes: null}}\n"));
  CHECK(del.at(0).doc.root["resources"] == srt::Json::object());
}

TEST_CASE("variants: marks point at the line each value came from", "[variants]") {
  const auto vs = srt::expand_variants(file_doc());
  const srt::Document& b = vs[1].doc;
  CHECK(b.mark_of("resources.prefill_nodes").line == 16);  // set by override_b
  CHECK(b.mark_of("resources.decode_nodes").line == 8);    // from base
  CHECK(b.mark_of("extra_mount[0]").line == 18);           // the replacing list's item
  CHECK(b.mark_of("extra_mount").line == 18);
  CHECK(b.mark_of("name").line == 14);                     // generated: the section's key
  CHECK(b.mark_of("schema").line == 1);
  const srt::Document& a = vs[0].doc;
  CHECK(a.marks.count("frontend") == 0);
  CHECK(a.marks.count("frontend.type") == 0);
  CHECK(a.mark_of("setup_script").line == 23);
  const srt::Document& z1 = vs[3].doc;
  CHECK(z1.mark_of("resources.decode_nodes").line == 26);
  CHECK(z1.mark_of("resources.decode_nodes").column > 20);  // the item 3, not the key
  CHECK(z1.mark_of("extra_mount[1]").line == 29);
  CHECK(z1.mark_of("resources.gpus_per_node").line == 28);  // the broadcast item
  CHECK(z1.mark_of("resources.prefill_nodes").line == 7);
}

TEST_CASE("variants: zip slices, broadcasts and passes lists of lists", "[variants]") {
  const auto vs = srt::expand_variants(file_doc(), "zip_override_z");
  REQUIRE(vs.size() == 2);
  CHECK(vs[0].doc.root["resources"]["decode_nodes"] == 1);
  CHECK(vs[1].doc.root["resources"]["decode_nodes"] == 3);
  CHECK(vs[1].doc.root["resources"]["decode_workers"] == 3);
  CHECK(vs[1].doc.root["resources"]["gpus_per_node"] == 8);   // length 1 broadcasts
  CHECK(vs[1].doc.root["setup_script"] == "z.sh");             // scalars broadcast
  CHECK(vs[0].doc.root["extra_mount"] == srt::Json::array({"/x:/x"}));
  CHECK(vs[1].doc.root["extra_mount"] == srt::Json::array({"/y:/y", "/w:/w"}));
  CHECK(vs[1].doc.root["resources"]["prefill_nodes"] == 1);    // the rest from base
  // a list of names names the variants; a scalar name does not (srtctl generates them then)
  const auto named = srt::expand_variants(file_doc(kSmallBase + "zip_override_n: {name: [p, q], x: [1, 2]}\n"));
  CHECK(names(named) == std::vector<std::string>{"p", "q"});
  const auto scalar = srt::expand_variants(file_doc(kSmallBase + "zip_override_n: {name: same, x: [1, 2]}\n"));
  CHECK(names(scalar) == std::vector<std::string>{"t_n_0", "t_n_1"});
  // every list of length 1: one variant
  CHECK(srt::expand_variants(file_doc(kSmallBase + "zip_override_one: {x: [1]}\n")).size() == 1);
}

TEST_CASE("variants: zip errors name the file, line and key path", "[variants]") {
  CHECK_THAT(expand_error(kSmallBase + "zip_override_u:\n  a: [1, 2]\n  b: {c: [1, 2, 3]}\n"),
             Catch::Contains("v.yaml:4:") && Catch::Contains("zip_override_u.b.c: has 3 items but zip_override_u.a (line 3) has 2") &&
                 Catch::Contains("length 1"));
  CHECK_THAT(expand_error(kSmallBase + "zip_override_e:\n  a: []\n"),
             Catch::Contains("v.yaml:3:") && Catch::Contains("zip_override_e.a: is an empty list"));
  CHECK_THAT(expand_error(kSmallBase + "zip_override_s:\n  a: 1\n"),
             Catch::Contains("v.yaml:2:1: zip_override_s: has no list values"));
  CHECK_THAT(expand_error(kSmallBase + "override_x: 5\n"), Catch::Contains("override_x: must be a mapping"));
  CHECK_THAT(expand_error(kSmallBase + "override_x:\n"), Catch::Contains("override_x: must be a mapping"));
  CHECK_THAT(expand_error("base: [1]\noverride_x: {}\n"), Catch::Contains("v.yaml:1:1: base: must be a mapping"));
}

TEST_CASE("variants: every selector form", "[variants]") {
  const auto doc = file_doc();
  CHECK(selectors(srt::expand_variants(doc, "base")) == std::vector<std::string>{"base"});
  const auto base = srt::expand_variants(doc, "base").at(0);
  CHECK(base.name == "t");
  CHECK(base.doc.root["schema"] == srt::Json(1));
  CHECK(base.doc.mark_of("resources.prefill_nodes").line == 7);
  CHECK(selectors(srt::expand_variants(doc, "override_b")) == std::vector<std::string>{"override_b"});
  CHECK(selectors(srt::expand_variants(doc, "zip_override_z")) ==
        std::vector<std::string>{"zip_override_z[0]", "zip_override_z[1]"});
  CHECK(names(srt::expand_variants(doc, "zip_override_z[1]")) == std::vector<std::string>{"t_z_1"});
  // globs: fnmatch over the section keys, sorted together; base never matches
  CHECK(selectors(srt::expand_variants(doc, "override_*")) == std::vector<std::string>{"override_a", "override_b"});
  CHECK(selectors(srt::expand_variants(doc, "*")) ==
        std::vector<std::string>{"override_a", "override_b", "zip_override_z[0]", "zip_override_z[1]"});
  CHECK(selectors(srt::expand_variants(doc, "*_[b]")) == std::vector<std::string>{"override_b"});
  CHECK(selectors(srt::expand_variants(doc, "zip*")).size() == 2);
  CHECK(srt::expand_variants(file_doc("base: {name: t}\noverride_zz: {}\nzip_override_a: {x: [1]}\n"), "*")
            .at(0).selector == "override_zz");  // "override_zz" < "zip_override_a"

  const auto listed = "valid selectors: base, override_a, override_b, zip_override_z, zip_override_z[0], zip_override_z[1]";
  CHECK_THAT(expand_error(kFile, "override_nope"), Catch::Contains("there is no variant 'override_nope'") && Catch::Contains(listed));
  CHECK_THAT(expand_error(kFile, "zip_override_q"), Catch::Contains("no zip group 'zip_override_q'") && Catch::Contains(listed));
  CHECK_THAT(expand_error(kFile, "zip_override_q[0]"), Catch::Contains("no zip group 'zip_override_q'"));
  CHECK_THAT(expand_error(kFile, "zip_override_z[2]"),
             Catch::Contains("v.yaml:24:1: zip_override_z: has 2 variants, so [2] is out of range"));
  CHECK_THAT(expand_error(kFile, "nothing*"), Catch::Contains("no variant matches 'nothing*'") && Catch::Contains(listed));
  CHECK_THAT(expand_error(kFile, "ba?e"), Catch::Contains("no variant matches 'ba?e'"));  // base never by glob
  CHECK(srt::variant_selectors(doc) == std::vector<std::string>{"base", "override_a", "override_b", "zip_override_z",
                                                                "zip_override_z[0]", "zip_override_z[1]"});
}

TEST_CASE("FILE:SELECTOR: a selector only after an existing file, and only in a selector's shape", "[variants]") {
  std::set<std::string> files = {"v.yaml", "dir/v.yaml", "odd.yaml:override_x", "a:b.yaml"};
  const auto exists = [&](const std::string& p) { return files.count(p) > 0; };
  const auto split = [&](const std::string& arg) {
    const srt::RecipeRef r = srt::split_recipe_ref(arg, exists);
    return r.path + "|" + r.selector;
  };
  CHECK(split("v.yaml") == "v.yaml|");
  CHECK(split("v.yaml:override_x") == "v.yaml|override_x");
  CHECK(split("dir/v.yaml:zip_override_g[3]") == "dir/v.yaml|zip_override_g[3]");
  CHECK(split("v.yaml:base") == "v.yaml|base");
  CHECK(split("v.yaml:*mtp*") == "v.yaml|*mtp*");
  CHECK(split("a:b.yaml") == "a:b.yaml|");                       // a path with a colon, no selector
  CHECK(split("odd.yaml:override_x") == "odd.yaml:override_x|");  // the whole name exists: a file
  CHECK(split("missing.yaml:override_x") == "missing.yaml:override_x|");  // "cannot open" names it all
  CHECK(split("v.yaml:sub/override_x") == "v.yaml:sub/override_x|");
  CHECK(split("v.yaml:other") == "v.yaml:other|");
  CHECK(split("v.yaml:") == "v.yaml:|");
  CHECK(srt::split_recipe_ref("v.yaml:override_x", exists).given == "v.yaml:override_x");
  CHECK(srt::looks_like_selector("override_x"));
  CHECK_FALSE(srt::looks_like_selector("yaml"));
}

TEST_CASE("variants: --set into base, every override and every zip group - --unset everywhere", "[variants]") {
  auto doc = file_doc();
  srt::apply_variant_overrides(doc, {"setup_script=new.sh", "resources.prefill_nodes=4"}, {"extra_mount"});
  CHECK(doc.root["base"]["setup_script"] == "new.sh");
  CHECK(doc.root["override_b"]["resources"]["prefill_nodes"] == 4);
  CHECK(doc.root["zip_override_z"]["setup_script"] == srt::Json::array({"new.sh"}));  // broadcasts
  CHECK(doc.overrides.count("setup_script") == 1);
  for (const auto& v : srt::expand_variants(doc)) {
    CHECK(v.doc.root["setup_script"] == "new.sh");  // --set always wins, even over the sections
    CHECK(v.doc.root["resources"]["prefill_nodes"] == 4);
    CHECK_FALSE(v.doc.root.contains("extra_mount"));
    CHECK(v.doc.origin_of("setup_script") == "--set setup_script=new.sh");
  }
  CHECK(doc.warnings.empty());
  // a list VALUE in a zip group stays one literal list for every variant
  auto listed = file_doc();
  srt::apply_variant_overrides(listed, {"extra_mount=[/q:/q, /r:/r]"}, {});
  for (const auto& v : srt::expand_variants(listed)) CHECK(v.doc.root["extra_mount"].size() == 2);
  // --unset of a key that is nowhere: one warning; present in some section only: none
  auto missing = file_doc();
  srt::apply_variant_overrides(missing, {}, {"no.such.key", "setup_script"});
  REQUIRE(missing.warnings.size() == 1);
  CHECK_THAT(missing.warnings[0].str(), Catch::Contains("--unset no.such.key") && Catch::Contains("base or any override"));
  // a --set that cannot apply in a section names it
  auto bad = file_doc();
  CHECK_THROWS_WITH(srt::apply_variant_overrides(bad, {"setup_script.x=1"}, {}),
                    Catch::Contains("--set setup_script.x=1") && Catch::Contains("in override_a:"));  // base has no setup_script
}

TEST_CASE("variants: open and load, with the variant named in every diagnostic", "[variants]") {
  srt::RecipeRef ref{"v.yaml", "", "v.yaml"};
  auto sources = srt::open_recipe_text(kFile.substr(kFile.find('\n') + 1), ref, {});  // without schema: 1
  REQUIRE(sources.size() == 4);
  CHECK(sources[1].given == "v.yaml:override_b");
  CHECK(srt::load_recipe_source(std::move(sources[1]), {}).name == "t_b");
  CHECK(srt::load_recipe_source(std::move(sources[3]), {}).resources.decode_nodes == 3);

  // An error in what an override set: its line, its key path, and which variant.
  const std::string bad = kFile.substr(kFile.find('\n') + 1) + "override_c:\n  resources: {prefill_nodes: many}\n";
  ref.selector = "override_c";
  auto one = srt::open_recipe_text(bad, ref, {});
  REQUIRE(one.size() == 1);
  try {
    srt::load_recipe_source(std::move(one[0]), {});
    FAIL("loaded");
  } catch (const srt::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("v.yaml:31:") && Catch::Contains("resources.prefill_nodes") &&
                             Catch::Contains("in variant override_c"));
  }
  // --set through RecipeOptions
  srt::RecipeOptions o;
  o.set = {"resources.decode_nodes=2", "resources.decode_workers=2"};
  ref.selector = "override_b";
  auto set = srt::open_recipe_text(kFile.substr(kFile.find('\n') + 1), ref, o);
  CHECK(srt::load_recipe_source(std::move(set.at(0)), o).resources.decode_nodes == 2);

  // A top-level key srtctl ignores: a warning in every variant, naming its line.
  const srt::RecipeRef all{"v.yaml", "", "v.yaml"};
  auto stray = srt::open_recipe_text(kSmallBase + "override_x: {}\nresources: {decode_nodes: 1}\n", all, {});
  REQUIRE(stray.at(0).doc.warnings.size() == 1);
  CHECK_THAT(stray[0].doc.warnings[0].str(), Catch::Contains("v.yaml:3:1: resources: ignored"));

  // A selector on a plain recipe, and a file that expands to nothing, are errors.
  srt::RecipeRef plain{"r.yaml", "override_x", "r.yaml:override_x"};
  CHECK_THROWS_WITH(srt::open_recipe_text("name: x\n", plain, {}), Catch::Contains("not a variants file"));
  const srt::RecipeRef whole{"v.yaml", "", "v.yaml"};
  CHECK_THROWS_WITH(srt::open_recipe_text(kSmallBase, whole, {}),
                    Catch::Contains("expands to no recipe") && Catch::Contains("v.yaml:base"));
}

// srt-helper migrate: v1 -> schema 2 as srtctl migrate rewrites it
// (reference/srt-slurm-v2.md 4). The proof the issue asks for: the v1 spelling of every shipped
// recipe, migrated and loaded through the normal loader, makes the same Plan (digest included) as
// the v1 file and as the hand-written schema-2 recipe we ship, and is that recipe, comments aside. Then each 4
// mapping, the emitter's quoting round trip, the header line, and the refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "srt/migrate.hpp"
#include "srt/plan.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"
#include "srt/variants.hpp"

namespace {

srt::Json migrate(const std::string& text) { return srt::migrate_to_schema2(srt::parse_yaml(text, "r.yaml")); }

std::vector<srt::Diagnostic> refusals(const std::string& text) {
  try {
    migrate(text);
  } catch (const srt::Error& e) {
    return e.diagnostics();
  }
  return {};
}

void expect(const std::vector<srt::Diagnostic>& ds, const std::string& path, int line, const std::string& text) {
  std::string all;
  for (const auto& d : ds) all += d.str() + "\n";
  INFO("want " << path << " @" << line << " ~ " << text << "\ngot:\n" << all);
  auto it = std::find_if(ds.begin(), ds.end(), [&](const srt::Diagnostic& d) {
    return d.key_path == path && d.message.find(text) != std::string::npos;
  });
  REQUIRE(it != ds.end());
  CHECK(it->file == "r.yaml");
  CHECK(it->mark.line == line);
  CHECK_FALSE(it->hint.empty());
}

std::vector<std::string> keys(const srt::Json& o) {
  std::vector<std::string> k;
  for (auto it = o.begin(); it != o.end(); ++it) k.push_back(it.key());
  return k;
}

const std::string kHead = "name: t\nmodel: {path: m, container: c}\n";

}  // namespace

namespace {

// Each shipped recipe (schema 2, hand-written with its comments) and its v1 spelling, kept as
// migrate's input under tests/fixtures/recipes/v1.
const std::vector<std::pair<std::string, std::string>> kShippedAndV1 = {
    {"recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml", "tests/fixtures/recipes/v1/atom-disagg-1p1d-tp8-8k1k.yaml"},
    {"recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml", "tests/fixtures/recipes/v1/atom-disagg-2p1d-dpa-tp8-8k1k.yaml"},
    {"recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml", "tests/fixtures/recipes/v1/lab-disagg-1p1d-tp8.yaml"},
    {"recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml", "tests/fixtures/recipes/v1/lab-disagg-2p1d-dpa-tp8.yaml"},
};

// Key order is not meaning: compare as plain (sorted) JSON.
nlohmann::json unordered(const srt::Json& j) { return nlohmann::json::parse(j.dump()); }

}  // namespace

TEST_CASE("migrate: every shipped recipe is schema 2, and the DSV4 8k/1k ones have their v1 spelling beside the tests", "[recipe][migrate]") {
  std::set<std::string> shipped, dsv4_8k1k;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SRT_SOURCE_DIR "/recipes"))
    if (entry.path().extension() == ".yaml") {
      const std::string rel = std::filesystem::relative(entry.path(), SRT_SOURCE_DIR).string();
      shipped.insert(rel);
      if (rel.find("/dsv4/") != std::string::npos && rel.find("/8k1k/") != std::string::npos) dsv4_8k1k.insert(rel);
    }
  std::set<std::string> paired;
  for (const auto& [v2, v1] : kShippedAndV1) paired.insert(v2);
  // The 8k/1k pair predates schema 2 (the smoke recipes, qwen3/, and the AgentX, SGLang and vLLM
  // ones were written in schema 2 from the start).
  CHECK(dsv4_8k1k == paired);
  CHECK(shipped.size() > paired.size());
  for (const auto& path : shipped) {
    INFO(path);
    const srt::Document doc = srt::load_yaml_file(SRT_SOURCE_DIR "/" + path);
    // A variants file (srt-slurm 2.x: base plus override_*) says it in its base.
    const srt::Json& root = srt::is_variants_document(doc) ? doc.root["base"] : doc.root;
    CHECK(root.value("schema", 0) == 2);
  }
}

TEST_CASE("migrate: each v1 recipe, migrated, makes the shipped schema-2 recipe's Plan", "[recipe][migrate]") {
  for (const auto& [shipped_rel, v1_rel] : kShippedAndV1) {
    const std::string shipped = SRT_SOURCE_DIR "/" + shipped_rel, path = SRT_SOURCE_DIR "/" + v1_rel;
    INFO(path);
    const srt::Document doc = srt::load_yaml_file(path);
    REQUIRE_FALSE(doc.root.contains("schema"));
    const std::string text = srt::migrate_to_schema2_yaml(doc, path);
    srt::RecipeOptions current;
    current.read.current_schema = true;  // no v1 key is left behind
    const srt::Recipe v1 = srt::load_recipe_file(path);
    const srt::Recipe v2 = srt::load_recipe_text(text, path + " (migrated)", current);
    const srt::Recipe written = srt::load_recipe_file(shipped, current);
    CHECK(v2.unsupported_keys.size() == v1.unsupported_keys.size());  // each in its own spelling
    CHECK(written.unsupported_keys.empty());
    const srt::Profile profile = srt::default_profile();
    const int nodes = srt::node_demand(v1, profile);
    CHECK(srt::node_demand(v2, profile) == nodes);
    CHECK(srt::node_demand(written, profile) == nodes);
    srt::PlanInputs in;
    in.job_id = 4242;
    in.recipe_path = shipped_rel;  // the same recipe_path input for all three
    for (int i = 1; i <= nodes; ++i) {
      in.nodes.push_back("mi355x-0" + std::to_string(i));
      in.addresses[in.nodes.back()] = "10.0.0." + std::to_string(i);
    }
    const srt::Plan a = srt::make_plan(v1, profile, in);
    const srt::Plan b = srt::make_plan(v2, profile, in);
    const srt::Plan c = srt::make_plan(written, profile, in);
    CHECK(srt::plan_to_json(a) == srt::plan_to_json(b));
    CHECK(srt::plan_to_json(a) == srt::plan_to_json(c));
    CHECK(a.digest == b.digest);
    CHECK(a.digest == c.digest);
    CHECK(srt::plan_digest(b) == srt::plan_digest(a));
  }
}

TEST_CASE("migrate: the v1 ATOM recipe becomes the shipped schema-2 recipe", "[recipe][migrate]") {
  for (const auto& [shipped, v1] : kShippedAndV1) {
    INFO(v1);
    const srt::Json got = srt::migrate_to_schema2(srt::load_yaml_file(SRT_SOURCE_DIR "/" + v1));
    const srt::Json want = srt::load_yaml_file(SRT_SOURCE_DIR "/" + shipped).root;
    CHECK(unordered(got) == unordered(want));
    CHECK(keys(got) == std::vector<std::string>{"schema", "name", "model", "identity", "slurm", "resources", "frontend", "engine",
                                                "roles", "srun_options", "health_check", "benchmark"});
  }
}

TEST_CASE("migrate: resources and backend per role become roles.<role>", "[recipe][migrate]") {
  const srt::Json j = migrate(kHead +
                              "resources: {gpu_type: mi355x, gpus_per_node: 8, prefill_nodes: 2, decode_nodes: 1, prefill_workers: 2,\n"
                              "            decode_workers: 1, gpus_per_decode: 8, decode_critical: false}\n"
                              "backend:\n  type: trtllm\n  publish_metrics: true\n  prefill_environment: {A: '1'}\n"
                              "  trtllm_config: {prefill: {x: 1}, decode: {y: 2}}\n  decode_extra_args: [--z]\n");
  CHECK(j["resources"] == srt::Json{{"gpu_type", "mi355x"}, {"gpus_per_node", 8}});
  CHECK(j["engine"] == srt::Json{{"type", "trtllm"}, {"publish_metrics", true}});
  CHECK(j["roles"]["prefill"] == srt::Json{{"nodes", 2}, {"workers", 2}, {"env", {{"A", "1"}}}, {"args", {{"x", 1}}}});
  CHECK(j["roles"]["decode"] ==
        srt::Json{{"nodes", 1}, {"workers", 1}, {"gpus", 8}, {"critical", false}, {"args", {{"y", 2}}}, {"extra_args", {"--z"}}});
  CHECK_FALSE(j.contains("backend"));
}

TEST_CASE("migrate: backend.type alone is a bare engine string - aggregated is agg", "[recipe][migrate]") {
  const srt::Json j = migrate(kHead + "resources: {agg_nodes: 1, agg_workers: 2}\nbackend: {type: sglang, sglang_config: {aggregated: {tp: 4}}}\n");
  CHECK(j["engine"] == "sglang");
  CHECK(j["roles"] == srt::Json{{"agg", {{"nodes", 1}, {"workers", 2}, {"args", {{"tp", 4}}}}}});
  CHECK_FALSE(j.contains("resources"));  // nothing but role sizes was in it
}

TEST_CASE("migrate: decode_nodes 0 is colocate with gpus on both roles", "[recipe][migrate]") {
  const srt::Json j = migrate(kHead + "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 0, prefill_workers: 2, decode_workers: 2}\n"
                                      "backend: {type: atom}\nfrontend: {type: atomesh}\n");
  CHECK(j["roles"]["decode"]["nodes"] == "colocate");
  CHECK(j["roles"]["prefill"]["gpus"] == 4);
  CHECK(j["roles"]["decode"]["gpus"] == 4);
  // Loadable when the GPUs fit one node: gpus_per_prefill given, decode inherits it.
  const srt::Json k = migrate(kHead + "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 0, prefill_workers: 1, decode_workers: 1,\n"
                                      "            gpus_per_prefill: 4}\nbackend: {type: atom}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n");
  CHECK(k["roles"]["decode"]["gpus"] == 4);
  const srt::Recipe r = srt::load_recipe_text(srt::emit_yaml(k), "m.yaml");
  CHECK(r.resources.decode_nodes == 0);
  CHECK(r.resources.decode_nodes_given);
  expect(refusals(kHead + "resources: {prefill_nodes: 1, decode_nodes: 0, prefill_workers: 1}\n"), "resources.decode_nodes", 3,
         "colocate needs gpus on both roles");
}

TEST_CASE("migrate: KV events, sidecar and the Dynamo source", "[recipe][migrate]") {
  srt::Json j = migrate(kHead + "resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}\n"
                                "backend: {type: atom, enable_kv_events: true}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n");
  CHECK(j["roles"]["prefill"]["kv_events"] == true);
  CHECK(j["roles"]["decode"]["kv_events"] == true);
  CHECK(j["engine"] == "atom");
  CHECK(srt::load_recipe_text(srt::emit_yaml(j), "m.yaml").backend.enable_kv_events);
  j = migrate(kHead + "resources: {agg_nodes: 1}\nbackend: {type: sglang, kv_events_config: true}\n");
  CHECK(j["roles"]["agg"]["kv_events"] == true);  // agg too on SGLang (docs/legacy-v1.md)
  j = migrate(kHead + "resources: {prefill_nodes: 1, decode_nodes: 1}\nbackend: {type: vllm, kv_events_config: {prefill: {topic: t}}}\n"
                      "dynamo: {version: 0.8.1, sidecar: true, install: true}\n");
  CHECK(j["roles"]["prefill"]["kv_events"] == srt::Json{{"topic", "t"}});
  CHECK(j["roles"]["prefill"]["sidecar"] == true);
  CHECK(j["roles"]["decode"]["sidecar"] == true);
  CHECK(j["dynamo"] == srt::Json{{"source", {{"pypi", "0.8.1"}}}, {"install", true}});
}

TEST_CASE("migrate: placement, infra, Mooncake and the v1 sglang router", "[recipe][migrate]") {
  const srt::Json j = migrate(kHead +
                              "resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}\n"
                              "frontend: {type: sglang, dedicated_node: true, args: {p: 1}}\n"
                              "backend: {type: vllm, mooncake_kv_store: {container: mc, env: {E: '1'}, master_extra_args: [-v], store_config: {s: 1}}}\n"
                              "infra: {etcd_nats_dedicated_node: true, nats_max_payload_mb: 64}\n"
                              "benchmark: {type: manual, client_dedicated_node: true}\n");
  CHECK(j["frontend"] == srt::Json{{"type", "sglang-router"}, {"placement", {{"node", "dedicated"}}}, {"args", {{"p", 1}}}});
  CHECK(j["benchmark"] == srt::Json{{"type", "manual"}, {"placement", {{"node", "dedicated"}}}});
  const srt::Json services = srt::Json::array(
      {{{"name", "etcd"}, {"type", "etcd"}, {"placement", {{"node", "dedicated"}}}},
       {{"name", "nats"}, {"type", "nats"}, {"placement", {{"node", "dedicated"}}}, {"options", {{"max_payload_mb", 64}}}},
       {{"name", "mooncake-master"}, {"type", "mooncake-master"}, {"container", "mc"}, {"env", {{"E", "1"}}}, {"args", {"-v"}},
        {"options", {{"store_config", {{"s", 1}}}}}}});
  CHECK(j["services"] == services);
  CHECK(keys(j) == std::vector<std::string>{"schema", "name", "model", "frontend", "engine", "roles", "services", "benchmark"});
  // And the reader gives back the v1 fields (infra, mooncake_kv_store) the original had.
  const srt::Recipe r = srt::load_recipe_text(srt::emit_yaml(j), "m.yaml");
  CHECK(r.source.root["infra"]["etcd_nats_dedicated_node"] == true);
  CHECK(r.source.root["infra"]["nats_max_payload_mb"] == 64);
  CHECK(r.source.root["backend"]["mooncake_kv_store"]["master_extra_args"] == srt::Json{"-v"});
  CHECK(r.source.root["frontend"]["dedicated_node"] == true);
  CHECK(r.source.root["benchmark"]["client_dedicated_node"] == true);
  // A false flag is the default: dropped, not turned into a placement.
  CHECK_FALSE(migrate(kHead + "frontend: {dedicated_node: false}\n")["frontend"].contains("placement"));
  CHECK_FALSE(migrate(kHead + "infra: {etcd_nats_dedicated_node: false}\n").contains("services"));
}

TEST_CASE("migrate: what 2.x cannot say is an error with its key path, not a drop", "[recipe][migrate]") {
  expect(refusals(kHead + "infra:\n  etcd_cpu_affinity: 0-3\n"), "infra.etcd_cpu_affinity", 4, "cannot be migrated");
  expect(refusals(kHead + "dynamo: {hash: abc}\n"), "dynamo.hash", 3, "dynamo.source");
  expect(refusals(kHead + "resources: {agg_nodes: 0}\n"), "resources.agg_nodes", 3, "zero-node agg");
  expect(refusals(kHead + "backend:\n  type: atom\n  sglang_config: {prefill: {}}\n"), "backend.sglang_config", 5, "one engine per recipe");
  expect(refusals(kHead + "backend:\n  mooncake_kv_store: {port: 1}\n"), "backend.mooncake_kv_store.port", 4, "no such field");
}

TEST_CASE("migrate: refuses a schema-2 recipe and a variants file", "[recipe][migrate]") {
  expect(refusals("schema: 2\n" + kHead + "engine: atom\n"), "schema", 1, "already srt-slurm's schema 2");
  expect(refusals(kHead + "roles: {agg: {nodes: 1}}\n"), "roles", 3, "already srt-slurm's schema 2");
  expect(refusals("base:\n  name: t\noverride_x: {name: u}\n"), "base", 1, "is a variants file");
  expect(refusals("schema: 3\n" + kHead), "schema", 1, "not supported");
  // schema: 1 is v1: migrated, and the key becomes 2.
  CHECK(migrate("schema: 1\n" + kHead)["schema"] == 2);
}

TEST_CASE("migrate: the emitter quotes what YAML 1.1 would read as another type", "[recipe][migrate]") {
  srt::Json j = srt::Json::object();
  j["strings"] = {"1", "true", "yes", "on", "Off", "~", "null", "", "08:00:00", "8:00:00", "0x10", "1e5", "1_000", "0.5", ".inf", "-1", "010",
                  "2026-12-01", "a: b", "#x", "- y", "*z", "&a", "!t", "[1]", "{a}", "'q'", "\"d\"", "plain", "tab\there", "ü"};
  j["1"] = "key that looks like an int";
  j["true"] = 1;
  j["numbers"] = {0, -3, 123456789012345LL, 0.84, 1e-05, 1e300, -2.5, 0.1 + 0.2, 100.0};
  j["flags"] = {{"on", true}, {"off", false}, {"none", nullptr}};
  j["script"] = "set -e\necho \"$X\"\n  indented\n";
  j["no_final_newline"] = "a\nb";
  j["two_final_newlines"] = "a\n\n";
  j["nested"] = {{"list", srt::Json::array({srt::Json::object(), srt::Json::array(), {{"k", "v"}}})}};
  const std::string text = srt::emit_yaml(j, "header");
  INFO(text);
  const srt::Document back = srt::parse_yaml(text, "back.yaml");
  CHECK(back.root == j);
  CHECK(text.rfind("# header\n", 0) == 0);
  CHECK(text.find("script: |") != std::string::npos);        // a shell script stays readable
  CHECK(text.find("\"8:00:00\"") != std::string::npos);  // sexagesimal 28800 in YAML 1.1 ("08:00:00" is not)
  CHECK(text.find("0.84") != std::string::npos);
  CHECK(text.find("0.83999") == std::string::npos);
}

TEST_CASE("migrate: the output's first line says where it came from and that comments are gone", "[recipe][migrate]") {
  const std::string text = srt::migrate_to_schema2_yaml(srt::parse_yaml(kHead + "slurm: {time_limit: '08:00:00'}  # kept?\n", "r.yaml"), "in/r.yaml");
  CHECK(text.rfind("# migrated from in/r.yaml by srt-helper migrate (v1 -> schema 2); comments of the original are not kept\n", 0) == 0);
  CHECK(text.find("kept?") == std::string::npos);
  const srt::Document back = srt::parse_yaml(text, "back.yaml");
  CHECK(back.root["slurm"]["time_limit"] == "08:00:00");
  CHECK(text.find("\nschema: 2\n") != std::string::npos);
  // A newline in the file name cannot end the comment line early.
  CHECK(srt::migrate_to_schema2_yaml(srt::parse_yaml(kHead, "r.yaml"), "a\nb: 1").find("a?b: 1") != std::string::npos);
}

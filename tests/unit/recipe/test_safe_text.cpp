// Keys, names and paths that end up in argv, environments, pyxis's mount list and file names
//: refused at validate, with the key path and what to write instead, so
// `plan` shows exactly what runs. Before: an empty srun_options key became a bare `--` (sbatch
// then took --signal=... as its script), commas in a mount path added mounts, `A=B` was kept as
// an environment name, and the recipe name was used as a path.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "srt/error.hpp"
#include "minimal_recipe.hpp"
#include "srt/recipe.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_safe_text {

namespace {

const std::string kBase = srt_test::kMinimalRecipe;

srt::Recipe load(const std::string& text) {
  srt::RecipeOptions o;
  o.default_gpus_per_node = 8;
  return srt::load_recipe_text(text, "r.yaml", o);
}

// A JSON-quoted YAML scalar, so any key or value can be written inline.
std::string q(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\0') out += "\\0";
    else if (c == '"' || c == '\\') out += std::string("\\") + c;
    else out += c;
  }
  return out + "\"";
}

// The diagnostics of `text`, or none when it is accepted.
std::vector<srt::Diagnostic> problems(const std::string& text) {
  try {
    load(text);
  } catch (const srt::Error& e) {
    return e.diagnostics();
  }
  return {};
}

void require_refused(const std::string& text, const std::string& path_prefix) {
  INFO(text);
  const auto ds = problems(text);
  REQUIRE_FALSE(ds.empty());
  bool named = false;
  for (const auto& d : ds) {
    INFO(d.str());
    CHECK(d.str().find('\n') == std::string::npos);  // one line each, as validate prints them
    if (d.key_path.rfind(path_prefix, 0) == 0) {
      named = true;
      CHECK(d.mark.line > 0);
      CHECK_FALSE(d.hint.empty());  // what to write instead
    }
  }
  CHECK(named);
}

void require_accepted(const std::string& text) {
  INFO(text);
  const auto ds = problems(text);
  for (const auto& d : ds) FAIL_CHECK(d.str());
}

}  // namespace

TEST_CASE("srun_options and sbatch_directives: keys are option names, nothing else", "[recipe][safe]") {
  for (const char* dict : {"srun_options", "sbatch_directives"}) {
    for (const std::string key : {"", "mem=4G", "--mem", "-N", "a b", "time\t10", "mem\n", " mem", "a,b"}) {
      require_refused(kBase + dict + ":\n  " + q(key) + ": \"1\"\n", dict);
    }
    for (const std::string key : {"mem", "container-writable", "cpus-per-task", "mem_bind", "gres"})
      require_accepted(kBase + dict + ":\n  " + key + ": \"1\"\n");
    require_refused(kBase + dict + ":\n  mem: " + q(std::string("4G\0x", 4)) + "\n", dict);  // argv ends at the NUL
  }
}

TEST_CASE("environment names are [A-Za-z_][A-Za-z0-9_]*, in every environment", "[recipe][safe]") {
  for (const std::string name : {"", "A=B", "1A", "A-B", "A B", "A\nB", "A.B", "\xc3\x89T\xc3\x89"}) {
    require_refused(kBase + "environment:\n  " + q(name) + ": \"1\"\n", "environment");
    std::string fe = kBase;
    fe.replace(fe.find("frontend: {type: atomesh, enable_multiple_frontends: false}"),
               std::string("frontend: {type: atomesh, enable_multiple_frontends: false}").size(),
               "frontend: {type: atomesh, enable_multiple_frontends: false, env: {" + q(name) + ": x}}");
    require_refused(fe, "frontend.env");
    require_refused(kBase + "benchmark: {type: manual, env: {" + q(name) + ": x}}\n", "benchmark.env");
    std::string be = kBase;
    be.replace(be.find("backend: {type: atom}"), std::string("backend: {type: atom}").size(),
               "backend: {type: atom, decode_environment: {" + q(name) + ": x}}");
    require_refused(be, "backend.decode_environment");
  }
  require_accepted(kBase + "environment:\n  A: \"1\"\n  _x: y\n  NCCL_IB_HCA1: \"mlx5_0\"\n  MULTI: \"two\\nlines\"\n");
  require_refused(kBase + "environment:\n  A: " + q(std::string("x\0y", 3)) + "\n", "environment.A");
}

TEST_CASE("mount paths: no ',' (it separates mounts) and no ':' inside a path", "[recipe][safe]") {
  for (const std::string host : {"/a,/etc", "/a:/etc", ""})
    require_refused(kBase + "container_mounts:\n  " + q(host) + ": /data\n", "container_mounts");
  for (const std::string inside : {"/data,/etc", "/da:ta", ""})
    require_refused(kBase + "container_mounts:\n  /data: " + q(inside) + "\n", "container_mounts");
  for (const std::string spec : {"/a,/etc:/etc", "/a:/b,/c:/d", "/a:/b:ro:/c", ":/b", "/a::ro", "", "/a:/b:"})
    require_refused(kBase + "extra_mount:\n  - " + q(spec) + "\n", "extra_mount[0]");
  require_accepted(kBase + "container_mounts:\n  /data: /data\nextra_mount:\n  - /a\n  - /a:/b\n  - /a:/b:ro\n");
}

TEST_CASE("the recipe name is one file-name component", "[recipe][safe]") {
  for (const std::string& name : std::vector<std::string>{"", " ", "a/b", "../../etc/x", "..", ".", "a\nb", std::string("a\0b", 3)}) {
    std::string text = kBase;
    text.replace(0, std::string("name: t").size(), "name: " + q(name));
    require_refused(text, "name");
  }
  for (const std::string name : {"x..y", "lab-atom-dsv4-disagg-1p1d-tp8", "a.b", "v1_2"}) {
    std::string text = kBase;
    text.replace(0, std::string("name: t").size(), "name: " + q(name));
    require_accepted(text);
  }
}

}  // namespace test_safe_text

// Every count a recipe gives is checked where it is read, with the limit it breaks named
// (srt/limits.hpp): parallel sizes in each role's engine flags, nodes, endpoints and GPUs.
#include <catch2/catch.hpp>

#include <string>

#include "srt/error.hpp"
#include "srt/limits.hpp"
#include "srt/recipe.hpp"

namespace test_counts {

namespace {

srt::Recipe load(const std::string& text) {
  srt::RecipeOptions o;
  o.default_gpus_per_node = 8;
  return srt::load_recipe_text(text, "r.yaml", o);
}

std::string atom_recipe(const std::string& decode_flags, const std::string& resources = "") {
  return "name: t\nmodel: {path: m, container: c}\n"
         "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1" +
         resources + "}\n"
         "backend: {type: atom, atom_config: {decode: {" + decode_flags + "}}}\n"
         "frontend: {type: atomesh, enable_multiple_frontends: false}\n";
}

// The one diagnostic at `path`, or a failed test.
srt::Diagnostic refused(const std::string& text, const std::string& path) {
  try {
    load(text);
  } catch (const srt::Error& e) {
    for (const auto& d : e.diagnostics())
      if (d.key_path == path) return d;
    FAIL("no diagnostic at " << path << ": " << e.what());
  }
  FAIL("accepted");
  return {};
}

}  // namespace

TEST_CASE("a parallel size beyond the limit is refused at its key, naming the limit", "[recipe]") {
  // 2^30: the product of the Plan's counts overflowed to 0 ranks; 2^32 + 2 was read as 2 while
  // the engine got the whole number.
  for (const char* value : {"1073741824", "4294967298", "'4294967298'", "1025", "0", "-8", "'99999999999999999999999'"}) {
    INFO(value);
    const srt::Diagnostic d = refused(atom_recipe(std::string("data-parallel-size: ") + value), "backend.atom_config.decode.data-parallel-size");
    CHECK_THAT(d.message, Catch::Contains("from 1 to 1024"));
    CHECK(d.mark.line == 4);
  }
  for (const char* key : {"pp", "pipeline_parallel_size", "-dp", "expert-parallel-size"}) {
    INFO(key);
    refused(atom_recipe(std::string(key) + ": 4294967298"), std::string("backend.atom_config.decode.") + key);
  }
  // Past 64 bits the YAML reader itself refuses it, at the same key.
  refused(atom_recipe("dp: 99999999999999999999999"), "backend.atom_config.decode.dp");
  CHECK_THAT(refused(atom_recipe("dp: eight"), "backend.atom_config.decode.dp").message,
             Catch::Contains("not a whole number"));
  CHECK_THAT(refused(atom_recipe("dp: 2.5"), "backend.atom_config.decode.dp").message,
             Catch::Contains("not a whole number"));
}

TEST_CASE("parallel sizes within the limit load as they did", "[recipe]") {
  CHECK_NOTHROW(load(atom_recipe("data-parallel-size: 1024")));
  CHECK_NOTHROW(load(atom_recipe("dp: '8', enable-dp-attention: true")));
  CHECK_NOTHROW(load(atom_recipe("dp: null")));
}

TEST_CASE("nodes, endpoints and GPUs beyond the limits are refused at their keys", "[recipe]") {
  CHECK_THAT(refused(atom_recipe("", ", gpus_per_decode: 1073741824"), "resources.gpus_per_decode").message,
             Catch::Contains("at most " + std::to_string(srt::kMaxEndpointGpus)));
  const std::string big = std::to_string(srt::kMaxRoleWorkers + 1);
  const std::string many_workers =
      "name: t\nmodel: {path: m, container: c}\n"
      "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, prefill_workers: " + big + ", decode_workers: 1}\n"
      "backend: {type: atom}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n";
  CHECK_THAT(refused(many_workers, "resources.prefill_workers").message, Catch::Contains("at most " + std::to_string(srt::kMaxRoleWorkers)));
  const std::string schema2 =
      "name: t\nmodel: {path: m, container: c}\nbackend: {type: atom}\n"
      "frontend: {type: atomesh, enable_multiple_frontends: false}\n"
      "roles:\n  prefill: {nodes: 4294967298, workers: 1}\n  decode: {nodes: 1, workers: 1}\n";
  CHECK(refused(schema2, "roles.prefill.nodes").mark.line == 6);
}

TEST_CASE("whole_number reads integers and digit strings only", "[recipe]") {
  CHECK(srt::whole_number(srt::Json(8)) == 8);
  CHECK(srt::whole_number(srt::Json("16")) == 16);
  CHECK(srt::whole_number(srt::Json(std::uint64_t(1) << 63)) == INT64_MAX);
  CHECK_FALSE(srt::whole_number(srt::Json("")));
  CHECK_FALSE(srt::whole_number(srt::Json("8 ")));
  CHECK_FALSE(srt::whole_number(srt::Json(true)));
  CHECK_FALSE(srt::whole_number(srt::Json(8.0)));
  CHECK(srt::parallel_size_problem(srt::Json(nullptr)).empty());
}

}  // namespace test_counts

// srtctl's --set/--unset: YAML values, dotted paths, [N], created maps, errors that name the option.
#include <catch2/catch.hpp>

#include "minimal_recipe.hpp"
#include "srt/recipe.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_overrides {

namespace {

const std::string kBase = std::string(srt_test::kMinimalRecipe) + "extra_mount: [/a:/a]\n";

srt::Recipe load(std::vector<std::string> set, std::vector<std::string> unset = {}) {
  srt::RecipeOptions o;
  o.set = std::move(set);
  o.unset = std::move(unset);
  return srt::load_recipe_text(kBase, "r.yaml", o);
}

std::string error_of(std::vector<std::string> set, std::vector<std::string> unset = {}) {
  try {
    load(std::move(set), std::move(unset));
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("set parses VALUE as YAML and creates missing mappings", "[overrides]") {
  auto r = load({"backend.atom_config.decode.max-num-seqs=64", "backend.enable_kv_events=on",
                 "benchmark.concurrencies=[1, 2]", "health_check.max_attempts=5", "name='007'"});
  CHECK(r.backend.decode_config["max-num-seqs"] == srt::Json(64));
  CHECK(r.backend.enable_kv_events);
  CHECK(r.benchmark.concurrencies == std::vector<int>{1, 2});
  CHECK(r.health_check->max_attempts == 5);
  CHECK(r.name == "007");
  CHECK(r.source.overrides.count("health_check.max_attempts") == 1);
}

TEST_CASE("set with an index replaces or appends a list item", "[overrides]") {
  CHECK(load({"extra_mount[0]=/b:/b"}).extra_mount == std::vector<std::string>{"/b:/b"});
  CHECK(load({"extra_mount[1]=/c:/c"}).extra_mount == std::vector<std::string>{"/a:/a", "/c:/c"});
  CHECK_THAT(error_of({"extra_mount[5]=/c"}), Catch::Contains("--set extra_mount[5]=/c: index 5 is beyond"));
  CHECK_THAT(error_of({"name[0]=x"}), Catch::Contains("'name' is not a list"));
}

TEST_CASE("unset removes a key and warns about a missing one", "[overrides]") {
  auto r = load({}, {"extra_mount", "nothing.here"});
  CHECK(r.extra_mount.empty());
  REQUIRE(r.source.warnings.size() == 1);
  CHECK(r.source.warnings[0].str().find("--unset nothing.here") == 0);
  CHECK_THAT(error_of({}, {"model.container"}), Catch::Contains("--unset model.container: model.container: is required"));
}

TEST_CASE("override errors name the override", "[overrides]") {
  CHECK_THAT(error_of({"nonsense"}), Catch::Contains("--set nonsense: expected key.path=VALUE"));
  CHECK_THAT(error_of({"a..b=1"}), Catch::Contains("empty key"));
  CHECK_THAT(error_of({"name.x=1"}), Catch::Contains("'name' is not a mapping"));
  CHECK_THAT(error_of({"name=[1"}), Catch::Contains("VALUE is not valid YAML"));
  CHECK_THAT(error_of({"resources.prefil_nodes=2"}),
             Catch::Contains("--set resources.prefil_nodes=2: resources.prefil_nodes: unknown key 'prefil_nodes'; did you mean 'prefill_nodes'?"));
  CHECK_THAT(error_of({"backend.atom_config.prefill.tp=4"}), Catch::Contains("--set backend.atom_config.prefill.tp=4"));
  CHECK_THAT(error_of({"slurm.time_limit=99999999999999999999"}), Catch::Contains("64-bit"));
}

}  // namespace test_overrides

// A runner's srtslurm.yaml against the admin's profile (srt/runner_config.hpp): only aliases the
// admin lacks and default_time_limit are taken, every other differing key is named and ignored,
// and the taken aliases are resolved into the recipe as submitted.
#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/runner_config.hpp"

namespace test_runner_config {

const char* const kAdmin = R"(
default_mounts:
  /it-share/hf-hub-cache: /hf_hub_cache
container_runtime: pyxis
model_paths:
  dsv4: /models/DeepSeek-V4-Pro
containers:
  atom: rocm/atom-dev:nightly_202609031453
)";

// As InferenceX's driver renders one for mi355x-amds (inferencex-runner.md (f)), with a runtime
// and a mount the admin does not have, and aliases old and new.
const char* const kRunner = R"(
default_mounts:
  /it-share/hf-hub-cache: /hf_hub_cache
  /home/runner: /root
container_runtime: docker
network_interface: eno0
model_paths:
  dsv4: /elsewhere/DeepSeek-V4-Pro
  glm5: /models/GLM-5.2
containers:
  atom: rocm/atom-dev:nightly_202609031453
  sglang: lmsysorg/sglang:v0.5.9-rocm700-mi35x
default_time_limit: "01:00:00"
)";

srt::RunnerConfig config() {
  return srt::read_runner_config(srt::parse_yaml(kRunner, "/ckpt/srtslurm.yaml"), srt::parse_yaml(kAdmin, "a").root);
}

TEST_CASE("runner's srtslurm.yaml: the admin's profile decides - new aliases and the time limit are taken") {
  const srt::RunnerConfig c = config();
  CHECK(c.file == "/ckpt/srtslurm.yaml");
  CHECK(c.model_paths == std::map<std::string, std::string>{{"glm5", "/models/GLM-5.2"}});
  CHECK(c.containers == std::map<std::string, std::string>{{"sglang", "lmsysorg/sglang:v0.5.9-rocm700-mi35x"}});
  CHECK(c.default_time_limit == "01:00:00");
  // The runtime, a mount, a key the admin has not set, an alias the admin defines otherwise; an
  // alias both define alike is nothing to say.
  CHECK(c.ignored == std::vector<std::string>{"model_paths.dsv4", "default_mounts", "container_runtime", "network_interface"});
}

TEST_CASE("runner's srtslurm.yaml: its aliases resolved into the recipe, a time limit only where none is set") {
  const srt::RunnerConfig c = config();
  srt::Json recipe = srt::Json::parse(R"({"schema": 2, "name": "r",
    "model": {"path": "glm5", "container": "sglang"}, "frontend": {"type": "sglang", "container_image": "atom"},
    "benchmark": {"type": "custom", "container_image": "sglang"}})");
  const auto said = srt::apply_runner_config(recipe, c);
  CHECK(recipe["model"]["path"] == "/models/GLM-5.2");
  CHECK(recipe["model"]["container"] == "lmsysorg/sglang:v0.5.9-rocm700-mi35x");
  CHECK(recipe["frontend"]["container_image"] == "atom");  // the admin's alias: the Plan resolves it
  CHECK(recipe["benchmark"]["container_image"] == "lmsysorg/sglang:v0.5.9-rocm700-mi35x");
  CHECK(recipe["slurm"]["time_limit"] == "01:00:00");
  CHECK(said.size() == 4);
  CHECK(said.front() == "model.path: glm5 -> /models/GLM-5.2");

  srt::Json timed = srt::Json::parse(R"({"name": "r", "model": {"path": "dsv4"}, "slurm": {"time_limit": "08:00:00"}})");
  CHECK(srt::apply_runner_config(timed, c).empty());  // dsv4 is the admin's alias
  CHECK(timed["slurm"]["time_limit"] == "08:00:00");
  CHECK(timed["model"]["path"] == "dsv4");
}

TEST_CASE("runner's srtslurm.yaml: malformed aliases and time limits are named at their key") {
  const srt::Json admin = srt::Json::object();
  const auto error_of = [&admin](const char* text) {
    try {
      srt::read_runner_config(srt::parse_yaml(text, "srtslurm.yaml"), admin);
    } catch (const srt::Error& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  CHECK_THAT(error_of("model_paths: [a, b]\n"), Catch::Contains("srtslurm.yaml:1:1") && Catch::Contains("mapping"));
  CHECK_THAT(error_of("containers:\n  x: {image: y}\n"), Catch::Contains("srtslurm.yaml:2:3") && Catch::Contains("containers.x"));
  CHECK_THAT(error_of("default_time_limit: 60\n"), Catch::Contains("must be a string"));
  CHECK_THAT(error_of("- a\n"), Catch::Contains("must be a mapping"));
  // Nothing in it, or only the admin's own values: nothing taken, nothing to say.
  const srt::RunnerConfig same = srt::read_runner_config(srt::parse_yaml(kAdmin, "s"), srt::parse_yaml(kAdmin, "a").root);
  CHECK(same.ignored.empty());
  CHECK(same.model_paths.empty());
}

}  // namespace test_runner_config

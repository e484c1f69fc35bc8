// The cluster profile: the shipped MI355X one, unknown keys, the AMD keys of both generations.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "srt/digest.hpp"
#include "srt/profile.hpp"
#include "srt/files.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_profile {

namespace {

const std::string kProfile = std::string(SRT_SOURCE_DIR) + "/etc/srt/cluster.yaml";

srt::Profile from_text(const std::string& text) { return srt::profile_from_document(srt::parse_yaml(text, "p.yaml")); }

std::string error_of(const std::string& text) {
  try {
    from_text(text);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the shipped MI355X profile", "[profile]") {
  auto p = srt::load_profile_file(kProfile);
  CHECK(p.gpus_per_node == 8);
  CHECK(p.visible_devices_env == "ROCR_VISIBLE_DEVICES");
  CHECK(p.gpu_sbatch_directive == "gres");
  CHECK(p.container_runtime == srt::ContainerRuntime::pyxis);
  CHECK(p.frontend_port == 8000);
  // results_root is the host directory; the profile mounts it as /results for the benchmark.
  CHECK(p.results_root == "/it-share/results");
  REQUIRE(p.default_health_check);
  CHECK(p.default_health_check->max_attempts == 720);
  std::vector<std::string> containers;
  for (const auto& [host, container] : p.default_mounts) containers.push_back(container);
  CHECK(containers == std::vector<std::string>{"/dev/kfd", "/dev/dri", "/hf_hub_cache", "/infmax-workspace", "/results"});
  bool results_mounted = false;
  for (const auto& [host, container] : p.default_mounts) results_mounted |= host == p.results_root && container == "/results";
  CHECK(results_mounted);
  std::ifstream in(kProfile, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  CHECK(p.digest == srt::sha256_hex(bytes.str()));
  CHECK(p.digest.size() == 64);
  CHECK(p.ignored_keys.empty());
  CHECK(p.source.warnings.empty());
}

TEST_CASE("unknown profile keys are errors with a suggestion", "[profile]") {
  CHECK_THAT(error_of("default_partiton: gpu\n"), Catch::Contains("p.yaml:1:1: default_partiton: unknown key 'default_partiton'; did you mean 'default_partition'?"));
  CHECK_THAT(error_of("gpus_per_node: eight\n"), Catch::Contains("expected a whole number"));
  CHECK_THAT(error_of("gpu_sbatch_directive: gpus\n"), Catch::Contains("not one of"));
  CHECK_THAT(error_of("accelerator_vendor: intel\n"), Catch::Contains("not one of: nvidia, amd"));
}

TEST_CASE("AMD keys of both srtslurm.yaml generations", "[profile]") {
  CHECK(from_text("accelerator_vendor: nvidia\n").visible_devices_env == "CUDA_VISIBLE_DEVICES");
  CHECK(from_text("accelerator_vendor: amd\n").visible_devices_env == "ROCR_VISIBLE_DEVICES");
  CHECK_THAT(error_of("accelerator_vendor: amd\nvisible_devices_env: CUDA_VISIBLE_DEVICES\n"), Catch::Contains("contradicts"));
  CHECK(from_text("use_gpus_per_node_directive: false\n").gpu_sbatch_directive == "none");
  CHECK(from_text("use_gpus_per_node_directive: true\n").gpu_sbatch_directive == "gpus-per-node");
  CHECK_THAT(error_of("use_gpus_per_node_directive: true\ngpu_sbatch_directive: gres\n"), Catch::Contains("contradicts"));
  auto p = from_text("srtctl_root: /opt/srtctl\nruntime_config_transport: embedded\n");
  CHECK(p.ignored_keys == std::vector<std::string>{"srtctl_root"});
}

TEST_CASE("srt-spank's own profile keys are range-checked", "[profile]") {
  CHECK_THAT(error_of("port_range_begin: 30000\nport_range_end: 20000\n"), Catch::Contains("above port_range_end"));
  // Mooncake's random transfer-engine ports: any overlap is refused, edges included.
  for (const char* range : {"port_range_begin: 14000\nport_range_end: 15000\n", "port_range_begin: 17000\nport_range_end: 18000\n",
                            "port_range_begin: 10000\nport_range_end: 20000\n"})
    CHECK_THAT(error_of(range), Catch::Contains("overlaps Mooncake's transfer-engine ports 15000-17000") &&
                                    Catch::Contains("port_range_begin"));
  CHECK(error_of("port_range_begin: 17001\nport_range_end: 18000\n").empty());
  CHECK_THAT(error_of("frontend_port: 20001\n"), Catch::Contains("inside the allocator's port range"));
  CHECK_THAT(error_of("frontend_port: 70000\n"), Catch::Contains("at most 65535"));
  CHECK_THAT(error_of("engine_command: []\n"), Catch::Contains("engine_command: is empty"));
  auto p = from_text("container_runtime: none\nnode_sharing: shared\nengine_command: [/lab/atom-standin]\n"
                     "node_addresses: {n1: 10.0.0.1}\nmooncake_gid_index: 3\n");
  CHECK(p.container_runtime == srt::ContainerRuntime::none);
  CHECK(p.node_sharing == srt::NodeSharing::shared);
  CHECK(p.engine_command == std::vector<std::string>{"/lab/atom-standin"});
  CHECK(p.node_addresses.at("n1") == "10.0.0.1");
  CHECK(p.mooncake_gid_index == 3);
  // default_host_setup: srtctl's HostSetupConfig, read as a recipe's host_setup is.
  const srt::Profile hs = from_text("default_host_setup: {commands: [a, b], teardown: [c], nodes: workers, "
                                    "ignore_failure: true, timeout_seconds: 60}\n");
  CHECK(hs.default_host_setup.given);
  CHECK(hs.default_host_setup.commands == std::vector<std::string>{"a", "b"});
  CHECK(hs.default_host_setup.teardown == std::vector<std::string>{"c"});
  CHECK(hs.default_host_setup.nodes == "workers");
  CHECK(hs.default_host_setup.ignore_failure);
  CHECK(hs.default_host_setup.timeout_seconds == 60);
  CHECK_THAT(error_of("default_host_setup: {nodes: prefill}\n"), Catch::Contains("is not one of: all, workers"));
  // auto: each worker's node finds the index; anything but 0-255, -1 or auto is refused.
  CHECK(from_text("mooncake_gid_index: auto\n").mooncake_gid_index == srt::kMooncakeGidAuto);
  CHECK(from_text("mooncake_gid_index: -1\n").mooncake_gid_index == -1);
  for (const char* bad : {"mooncake_gid_index: 256\n", "mooncake_gid_index: -2\n", "mooncake_gid_index: Auto\n",
                          "mooncake_gid_index: [3]\n"}) {
    INFO(bad);
    CHECK_THAT(error_of(bad), Catch::Contains("mooncake_gid_index: is ") &&
                                  Catch::Contains("a GID index is 0-255, -1 (unset) or auto"));
  }
  auto q = from_text("container_runtime: podman\ncontainer_runtime_args: [--runtime, runc]\n"
                     "container_run_args: [--ulimit, 'nofile=20000:20000']\ngpu_devices: {/lab/dev/kfd: /dev/kfd}\n");
  CHECK(q.container_runtime == srt::ContainerRuntime::podman);
  CHECK(q.container_runtime_args == std::vector<std::string>{"--runtime", "runc"});
  CHECK(q.container_run_args == std::vector<std::string>{"--ulimit", "nofile=20000:20000"});
  CHECK(q.gpu_devices == srt::EnvList{{"/lab/dev/kfd", "/dev/kfd"}});
  CHECK(from_text("container_runtime: docker\n").container_runtime == srt::ContainerRuntime::docker);
  CHECK(q.container_user == "image");
  CHECK(from_text("container_user: job\n").container_user == "job");
  CHECK_THAT(error_of("container_user: nobody\n"), Catch::Contains("container_user"));
  CHECK_THAT(error_of("container_runtime: singularity\n"), Catch::Contains("container_runtime"));
  CHECK(from_text("setup_scripts_dir: /shared/srt-slurm/configs\n").setup_scripts_dir == "/shared/srt-slurm/configs");
  CHECK_THAT(error_of("setup_scripts_dir: configs\n"), Catch::Contains("setup_scripts_dir: is not an absolute path"));
}

TEST_CASE("choose_profile_path order is explicit then SRTSLURM_CONFIG then the default if it exists", "[profile]") {
  CHECK(srt::choose_profile_path("/x.yaml", "", kProfile, true) == "/x.yaml");
  CHECK(srt::choose_profile_path("", "", kProfile, true) == kProfile);
  CHECK(srt::choose_profile_path("", "", "/nonexistent/cluster.yaml", false).empty());
  CHECK(srt::choose_profile_path("", "/env.yaml", kProfile, true) == "/env.yaml");
  CHECK(srt::choose_profile_path("/x.yaml", "/env.yaml", kProfile, true) == "/x.yaml");
}

}  // namespace test_profile

// GPU visibility variables derived from what Slurm granted (rule: srt/topology.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "srt/error.hpp"
#include "srt/topology.hpp"

TEST_CASE("No GPU GRES: ROCr sees the node, the worker's GPUs are named by node index", "[topology][visibility]") {
  srt::GpuVisibility v = srt::gpu_visibility_env("", {4, 5, 6, 7}, "");
  CHECK(v.rocr_visible_devices == "4,5,6,7");
  CHECK(v.hip_visible_devices == "0,1,2,3");
  CHECK(v.cuda_visible_devices == "0,1,2,3");
  CHECK(v.gpu_device_ordinal == "0,1,2,3");
}

TEST_CASE("Slurm without ConstrainDevices: global indices pass through", "[topology][visibility]") {
  srt::GpuVisibility v = srt::gpu_visibility_env("0,1,2,3,4,5,6,7", {5, 4}, "ROCR_VISIBLE_DEVICES");
  CHECK(v.rocr_visible_devices == "5,4");
  CHECK(v.hip_visible_devices == "0,1");
  // Same when only the global list is known as well.
  srt::GpuVisibility w = srt::gpu_visibility_env("4,5,6,7", {6}, "ROCR_VISIBLE_DEVICES", "4,5,6,7");
  CHECK(w.rocr_visible_devices == "6");
}

TEST_CASE("ConstrainDevices renumbering: local indices from the granted node GPUs", "[topology][visibility]") {
  // Slurm allocated node GPUs 2,3,6,7; inside the cgroup ROCr enumerates them as 0..3.
  srt::GpuVisibility v = srt::gpu_visibility_env("0,1,2,3", {6, 7}, "ROCR_VISIBLE_DEVICES", "2,3,6,7");
  CHECK(v.rocr_visible_devices == "2,3");
  CHECK(v.hip_visible_devices == "0,1");
  srt::GpuVisibility r = srt::gpu_visibility_env("0,1,2,3", {3, 2}, "ROCR_VISIBLE_DEVICES", "2,3,6,7");
  CHECK(r.rocr_visible_devices == "1,0");
  // A manual gres.conf makes Slurm set CUDA_VISIBLE_DEVICES (and the others) the same way.
  srt::GpuVisibility c = srt::gpu_visibility_env("0,1", {7}, "CUDA_VISIBLE_DEVICES", "6,7");
  CHECK(c.rocr_visible_devices == "1");
  CHECK(c.cuda_visible_devices == "0");
}

TEST_CASE("The plugin never widens what Slurm granted", "[topology][visibility]") {
  CHECK_THROWS_WITH(srt::gpu_visibility_env("0,1,2,3", {4}, "ROCR_VISIBLE_DEVICES"),
                    Catch::Contains("not among the GPUs Slurm granted") && Catch::Contains("ROCR_VISIBLE_DEVICES"));
  CHECK_THROWS_WITH(srt::gpu_visibility_env("0,1", {5}, "ROCR_VISIBLE_DEVICES", "2,3"),
                    Catch::Contains("not among"));
}

TEST_CASE("Inputs that cannot be mapped are refused, not guessed", "[topology][visibility]") {
  CHECK_THROWS_WITH(srt::gpu_visibility_env("GPU-5a17c0de00001111", {0}, "ROCR_VISIBLE_DEVICES"),
                    Catch::Contains("not a list of GPU indices"));
  CHECK_THROWS_WITH(srt::gpu_visibility_env("0,1,2", {0}, "ROCR_VISIBLE_DEVICES", "0,1"),
                    Catch::Contains("same number"));
  CHECK_THROWS_WITH(srt::gpu_visibility_env("", {2}, "ROCR_VISIBLE_DEVICES", "2,3"),
                    Catch::Contains("no GPU visibility variable"));
  CHECK_THROWS_AS(srt::gpu_visibility_env("0,,1", {0}, "ROCR_VISIBLE_DEVICES"), srt::Error);
  CHECK_THROWS_AS(srt::gpu_visibility_env("0,1", {1, 1}, "ROCR_VISIBLE_DEVICES"), srt::Error);
  CHECK_THROWS_AS(srt::gpu_visibility_env("0,1", {}, "ROCR_VISIBLE_DEVICES"), srt::Error);
}

TEST_CASE("The four variables, in the order they are set", "[topology][visibility]") {
  auto vars = srt::gpu_visibility_env("", {1}, "").variables();
  REQUIRE(vars.size() == 4);
  CHECK(vars[0] == std::make_pair(std::string("ROCR_VISIBLE_DEVICES"), std::string("1")));
  CHECK(vars[1].first == "HIP_VISIBLE_DEVICES");
  CHECK(vars[2].first == "CUDA_VISIBLE_DEVICES");
  CHECK(vars[3] == std::make_pair(std::string("GPU_DEVICE_ORDINAL"), std::string("0")));
}

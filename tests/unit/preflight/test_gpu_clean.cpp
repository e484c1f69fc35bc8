// The clean-GPU judge: what it ends, what stops the job, and that every line
// names node, GPU, PID and memory. The real ROCm SMI reading a busy GPU is test_rsmi_namespace.
#include <catch2/catch.hpp>

#include <string>

#include "srt/gpu_clean.hpp"

namespace {

constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;
constexpr int kUser = 1000;

srt::GpuCleanFacts node_with_two_gpus() {
  srt::GpuCleanFacts f;
  f.node = "node2";
  f.job_id = 77;
  f.uid = kUser;
  f.idle_vram_bytes = 1 * kGiB;
  f.gpus = {{0, "0000:05:00.0", 300ull << 20, 288 * kGiB, true}, {1, "0000:15:00.0", 300ull << 20, 288 * kGiB, true}};
  return f;
}

srt::GpuHolder holder(int pid, int uid, std::optional<long> job, bool running, const std::string& bus = "0000:15:00.0") {
  srt::GpuHolder h;
  h.pid = pid;
  h.uid = uid;
  h.comm = "python3";
  h.job_id = job;
  h.job_running = running;
  h.alive = true;
  h.bus_ids = {bus};
  h.vram = 168 * kGiB;
  h.vram_known = true;
  return h;
}

}  // namespace

TEST_CASE("Idle GPUs and nobody holding them: clean", "[gpu_clean]") {
  const srt::GpuCleanVerdict v = srt::judge_gpus(node_with_two_gpus());
  CHECK(v.clean());
}

TEST_CASE("Who holds a GPU decides: end ours, name everyone else's", "[gpu_clean]") {
  struct Case {
    const char* what;
    srt::GpuHolder h;
    bool ended;
    const char* says;
  };
  const Case cases[] = {
      {"our earlier job, finished", holder(4242, kUser, 41, false), true, "your earlier job 41"},
      {"this job itself", holder(4242, kUser, 77, true), true, "this job"},
      {"our job still running", holder(4242, kUser, 41, true), false, "still running; wait for it or scancel 41"},
      {"ours, outside any job", holder(4242, kUser, std::nullopt, false), false, "outside any Slurm job"},
      {"another user's finished job", holder(4242, 1001, 41, false), false, "not this job's user's"},
      {"a user we cannot read", holder(4242, -1, std::nullopt, false), false, "uid unknown"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    srt::GpuCleanFacts f = node_with_two_gpus();
    f.gpus[1].vram_used = 168 * kGiB;
    f.holders = {c.h};
    const srt::GpuCleanVerdict v = srt::judge_gpus(f);
    if (c.ended) {
      REQUIRE(v.end == std::vector<int>{4242});
      CHECK(v.problems.empty());
      REQUIRE(v.ending.size() == 1);
      CHECK_THAT(v.ending[0], Catch::Contains("node2") && Catch::Contains("PID 4242") &&
                                  Catch::Contains("GPU 1 (0000:15:00.0)") && Catch::Contains("168.0 GiB") &&
                                  Catch::Contains(c.says));
    } else {
      CHECK(v.end.empty());
      // One line for the holder; the GPU's memory is its memory, not a second problem.
      REQUIRE(v.problems.size() == 1);
      CHECK_THAT(v.problems[0], Catch::Contains("node2: GPU 1 (0000:15:00.0) is held by PID 4242") &&
                                    Catch::Contains("168.0 GiB") && Catch::Contains(c.says) &&
                                    Catch::Contains("--exclude=node2"));
    }
  }
}

TEST_CASE("Without the process's own VRAM, the GPU's memory is named", "[gpu_clean]") {
  srt::GpuCleanFacts f = node_with_two_gpus();
  f.gpus[1].vram_used = 160 * kGiB;
  srt::GpuHolder h = holder(4242, 1001, 41, false);
  h.vram_known = false;
  f.holders = {h};
  const srt::GpuCleanVerdict v = srt::judge_gpus(f);
  REQUIRE(v.problems.size() == 1);
  CHECK_THAT(v.problems[0], Catch::Contains("PID 4242 (python3, uid 1001) (the GPU has 160.0 GiB of VRAM in use)"));
}

TEST_CASE("A holder of GPUs the job does not have is not judged", "[gpu_clean]") {
  srt::GpuCleanFacts f = node_with_two_gpus();
  f.holders = {holder(99, 1001, 12, true, "0000:f5:00.0")};
  CHECK(srt::judge_gpus(f).clean());
}

TEST_CASE("VRAM in use with no live holder stops the job, within the bound it does not", "[gpu_clean]") {
  srt::GpuCleanFacts f = node_with_two_gpus();
  f.gpus[0].vram_used = 160 * kGiB;
  srt::GpuHolder dead = holder(4242, 1001, 41, false, "0000:05:00.0");
  dead.alive = false;  // KFD still lists it; /proc no longer has it
  f.holders = {dead};
  srt::GpuCleanVerdict v = srt::judge_gpus(f);
  CHECK(v.end.empty());
  REQUIRE(v.problems.size() == 1);
  CHECK_THAT(v.problems[0], Catch::Contains("node2: GPU 0 (0000:05:00.0) has 160.0 GiB of 288.0 GiB of VRAM in use") &&
                                Catch::Contains("no process on this node holds it") &&
                                Catch::Contains("gpu_idle_vram_mib") && Catch::Contains("1.0 GiB"));

  f.gpus[0].vram_used = 1 * kGiB;  // exactly the bound: a clean GPU
  CHECK(srt::judge_gpus(f).clean());
  f.gpus[0].vram_used = 160 * kGiB;
  f.gpus[0].known = false;  // ROCm SMI could not say: nothing to judge on memory
  CHECK(srt::judge_gpus(f).clean());
}

TEST_CASE("Memory reads as a person reads it", "[gpu_clean]") {
  CHECK(srt::format_bytes(300ull << 20) == "300 MiB");
  CHECK(srt::format_bytes(168 * kGiB) == "168.0 GiB");
  CHECK(srt::format_bytes(0) == "0 MiB");
}

TEST_CASE("Our named containers of other images go - ours in use, the job's own and others' stay", "[gpu_clean]") {
  // `enroot list -f`: a header, then NAME PID STATE ... (PID empty when nothing runs in it).
  const std::string list =
      "NAME                    PID    COMM  STATE  STARTED  TIME  MNTNS  USERNS  COMMAND\n"
      "pyxis_srt-0123456789ab\n"
      "pyxis_srt-aaaaaaaaaaaa  81234  bash  S      10:02    0:01  4026   4026    bash\n"
      "pyxis_srt-bbbbbbbbbbbb\n"
      "pyxis_77_srt-cccccccccccc\n"
      "pyxis_mycontainer\n"
      "pyxis_srt-XYZ\n"
      "ubuntu\n";
  const srt::StaleContainers s = srt::stale_containers(list, {"srt-bbbbbbbbbbbb"});
  CHECK(s.remove == std::vector<std::string>{"pyxis_srt-0123456789ab"});
  CHECK(s.running == std::vector<std::string>{"pyxis_srt-aaaaaaaaaaaa"});
  CHECK(srt::stale_containers("", {}).remove.empty());
  CHECK(srt::stale_containers("NAME PID\n", {}).remove.empty());
}

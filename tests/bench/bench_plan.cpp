// make_plan time for the shipped 2P1D recipe and for a 1024-node recipe (issue targets: <= 0.2 ms
// and <= 20 ms). Prints median and min over many runs; no pass/fail on absolute times.
//   bench_plan [SOURCE_DIR] [--large-only]   --large-only: just the 1024-node plans, for perf
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "srt/plan.hpp"
#include "srt/files.hpp"

namespace {

struct Stats {
  double median_ms, min_ms;
};

template <typename F>
Stats time_it(int runs, F&& f) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

srt::PlanInputs nodes(int n) {
  srt::PlanInputs in;
  in.job_id = 4242;
  in.recipe_path = "bench.yaml";
  for (int i = 0; i < n; ++i) {
    in.nodes.push_back("mi355x-" + std::to_string(i));
    in.addresses[in.nodes.back()] = "10.1." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  std::string src = SRT_SOURCE_DIR;
  bool large_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--large-only") large_only = true;
    else src = argv[i];
  }
  const srt::Profile profile = srt::default_profile();
  const srt::Recipe dsv4 = srt::load_recipe_file(src + "/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");
  const srt::PlanInputs three = nodes(3);
  const Stats small = time_it(large_only ? 1 : 2000, [&] { (void)srt::make_plan(dsv4, profile, three); });

  // 1024 nodes: 512 prefill and 512 decode workers of 8 GPUs, DP attention.
  srt::Recipe big = dsv4;
  big.resources.prefill_nodes = big.resources.prefill_workers = 512;
  big.resources.decode_nodes = big.resources.decode_workers = 512;
  const srt::PlanInputs many = nodes(1024);
  const Stats large = time_it(30, [&] { (void)srt::make_plan(big, profile, many); });
  if (large_only) {
    std::printf("1024 nodes: median %.3f ms, min %.3f ms\n", large.median_ms, large.min_ms);
    return 0;
  }

  const srt::Plan big_plan = srt::make_plan(big, profile, many);
  const Stats digest = time_it(30, [&] { (void)srt::plan_to_json(big_plan).dump(); });

  std::printf("%-34s %10s %10s\n", "make_plan", "median ms", "min ms");
  std::printf("%-34s %10.3f %10.3f\n", "DSV4 2P1D (3 nodes)", small.median_ms, small.min_ms);
  std::printf("%-34s %10.3f %10.3f\n", "1024 nodes (1024 workers, DPA)", large.median_ms, large.min_ms);
  std::printf("%-34s %10.3f %10.3f\n", "  plan_to_json().dump() (plan --json)", digest.median_ms, digest.min_ms);
  return 0;
}

// make_plan time for the shipped 2P1D recipe and for a 1024-node recipe (issue targets: <= 0.2 ms
// and <= 20 ms), and the same for SGLang: a 2P1D plan under DP attention (its block of derived
// ports per worker; target <= 0.1 ms) and a 1024-node PD plan (target <= 1.5x ATOM's 1024-node
// plan in the same run). Prints median and min over many runs; no pass/fail on absolute times.
//   bench_plan [SOURCE_DIR] [--large-only]   --large-only: just the 1024-node plans, for perf
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "srt/files.hpp"
#include "srt/plan.hpp"
#include "srt/recipe.hpp"

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

// SGLang PD under DP attention, as InferenceX's MI355X SGLang disaggregated recipes run it (TP8 x
// DP8 per worker, sglang-router in front).
srt::Recipe sglang_pd(int prefill, int decode) {
  const std::string text =
      "name: bench-sglang-pd-dpa\n"
      "model: {path: deepseek-ai/DeepSeek-R1-0528, container: sglang, precision: fp8}\n"
      "resources: {gpus_per_node: 8, prefill_nodes: " + std::to_string(prefill) + ", decode_nodes: " +
      std::to_string(decode) + ", prefill_workers: " + std::to_string(prefill) + ", decode_workers: " +
      std::to_string(decode) + "}\n"
      "backend:\n"
      "  type: sglang\n"
      "  sglang_config:\n"
      "    prefill: {tp-size: 8, dp-size: 8, enable-dp-attention: true}\n"
      "    decode: {tp-size: 8, dp-size: 8, enable-dp-attention: true}\n"
      "frontend: {type: sglang-router, enable_multiple_frontends: false}\n";
  return srt::load_recipe_text(text, "bench-sglang.yaml");
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

  const srt::Recipe sg_small = sglang_pd(2, 1), sg_big = sglang_pd(512, 512);
  const Stats sglang_small = time_it(2000, [&] { (void)srt::make_plan(sg_small, profile, three); });
  const Stats sglang_large = time_it(30, [&] { (void)srt::make_plan(sg_big, profile, many); });

  std::printf("%-34s %10s %10s\n", "make_plan", "median ms", "min ms");
  std::printf("%-34s %10.3f %10.3f\n", "DSV4 2P1D (3 nodes)", small.median_ms, small.min_ms);
  std::printf("%-34s %10.3f %10.3f\n", "1024 nodes (1024 workers, DPA)", large.median_ms, large.min_ms);
  std::printf("%-34s %10.3f %10.3f\n", "  plan_to_json().dump() (plan --json)", digest.median_ms, digest.min_ms);
  std::printf("%-34s %10.3f %10.3f\n", "SGLang 2P1D DP attention (3 nodes)", sglang_small.median_ms, sglang_small.min_ms);
  std::printf("%-34s %10.3f %10.3f\n", "SGLang 1024 nodes (PD, DPA)", sglang_large.median_ms, sglang_large.min_ms);
  std::printf("%-34s %10.2f\n", "  SGLang 1024 / ATOM 1024 (median)", sglang_large.median_ms / large.median_ms);
  return 0;
}

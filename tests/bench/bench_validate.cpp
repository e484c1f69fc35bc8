// bench_validate [RECIPE] [RUNS]: time to validate a recipe end to end (read, parse, schema,
// rules, node demand), median and p90 over RUNS. Target: well under 5 ms for the 2P1D recipe, so
// the submit-side check in sbatch is never what a user waits for.
// bench_validate RECIPE --first: the first load of a process alone, in ms, one-time work (the
// schema tables) included: what sbatch pays, once per submission, after reading the profile.
// bench-all.sh runs it in many processes and takes the median.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "srt/plan.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"

int main(int argc, char** argv) {
  const std::string src = SRT_SOURCE_DIR;
  const std::string recipe = argc > 1 && *argv[1] ? argv[1] : src + "/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml";
  const bool first = argc > 2 && std::string(argv[2]) == "--first";
  const int runs = argc > 2 && !first ? std::atoi(argv[2]) : 500;
  const srt::Profile profile = srt::load_profile_file(src + "/etc/srt/cluster.yaml");
  srt::RecipeOptions opts;
  opts.default_gpus_per_node = profile.gpus_per_node;
  int nodes = 0;
  auto timed_load = [&] {  // ms
    const auto t0 = std::chrono::steady_clock::now();
    const srt::Recipe r = srt::load_recipe_file(recipe, opts);
    nodes = srt::node_demand(r, profile);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  };
  if (first) {
    std::printf("%.3f\n", timed_load());
    return nodes > 0 ? 0 : 1;
  }
  std::vector<double> ms;
  for (int i = 0; i < runs + 20; ++i) {
    const double t = timed_load();
    if (i >= 20) ms.push_back(t);  // after warm-up
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2], p90 = ms[ms.size() * 9 / 10];
  std::printf("bench_validate: %s: %d nodes; %d runs: median %.3f ms, p90 %.3f ms, min %.3f ms, max %.3f ms\n",
              recipe.c_str(), nodes, runs, median, p90, ms.front(), ms.back());
  return median < 5.0 ? 0 : 1;
}

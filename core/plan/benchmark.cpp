#include <string>

#include "processes.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

Process make_benchmark(const Recipe& r, const PlanNode& bench, const EnvList& job_env) {
  Process b;
  b.name = "benchmark";
  b.role = Role::benchmark;
  b.node_index = bench.index;
  b.node = bench.name;
  b.step_name = "benchmark";
  b.log_file = "benchmark.out";
  b.critical = true;
  // custom: `bash -lc <command>` exactly as written; runtime values arrive as variables (1.5).
  b.argv = {"bash", "-lc", r.benchmark.command};
  b.env = job_env;
  for (const auto& [k, v] : r.environment) set_env(b.env, k, v);
  for (const auto& [k, v] : r.benchmark.env) set_env(b.env, k, v);
  // The whole grid, space-separated (`for c in $SRT_BENCHMARK_CONCURRENCIES`): the step as planned
  // runs every point; the launcher's per-point steps set one each (docs/design.md "Benchmark
  // sweep and stalls").
  if (reads_point_variable(r.benchmark)) {
    std::string grid;
    for (int c : r.benchmark.concurrencies) grid += (grid.empty() ? "" : " ") + std::to_string(c);
    set_env(b.env, kBenchmarkPointsVariable, grid);
  }
  b.readiness = {"none", 0, ""};
  return b;
}

bool reads_point_variable(const Benchmark& b) {
  // What the command text names is what it reads: bash cannot reach a variable it never spells
  // (an indirect ${!name} would have to spell it somewhere too). srtctl never sets it, so a
  // recipe that reads it must fall back to its own grid there (${SRT_BENCHMARK_CONCURRENCIES:-...}).
  return b.type == "custom" && !b.concurrencies.empty() && b.command.find(kBenchmarkPointsVariable) != std::string::npos;
}

}  // namespace srt::plan_detail

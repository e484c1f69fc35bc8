#include <string>

#include "flags.hpp"
#include "processes.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

namespace {

std::string url_of(const Process& w, const std::vector<PlanNode>& nodes) {
  return "http://" + nodes.at(std::size_t(w.node_index)).address + ":" +
         std::to_string(w.ports.http.front());
}

}  // namespace

Process make_router(const Recipe& r, const Profile& p, const PlanNode& head, int frontend_port, NodePorts& ports,
                    const std::vector<const Process*>& workers, const std::vector<PlanNode>& nodes) {
  Process router;
  router.name = "router";
  router.role = Role::router;
  router.node_index = head.index;
  router.node = head.name;
  router.step_name = "router";
  router.log_file = head.name + "_atomesh_0.out";
  router.ports.http = {frontend_port};
  router.ports.metrics = {ports.one("router --prometheus-port")};

  int prefill = 0, decode = 0, agg = 0;
  std::vector<std::string> urls;
  for (const Process* w : workers) {
    if (w->role == Role::prefill) ++prefill;
    else if (w->role == Role::decode) ++decode;
    else ++agg;
  }
  if (agg > 0 && (prefill > 0 || decode > 0))
    fail("the static router cannot mix aggregated and disaggregated workers");

  router.argv = p.router_command;
  router.argv.push_back("launch");
  if (agg == 0) {
    if (prefill == 0 || decode == 0)
      fail("a disaggregated router needs both prefill and decode workers",
           "set resources.prefill_workers and resources.decode_workers");
    router.argv.push_back("--pd-disaggregation");
    // ATOM publishes its transfer topology at /kv_transfer_info, so no bootstrap port follows.
    for (const Process* w : workers)
      if (w->role == Role::prefill) router.argv.insert(router.argv.end(), {"--prefill", url_of(*w, nodes)});
    for (const Process* w : workers)
      if (w->role == Role::decode) router.argv.insert(router.argv.end(), {"--decode", url_of(*w, nodes)});
  } else {
    router.argv.push_back("--worker-urls");
    for (const Process* w : workers) router.argv.push_back(url_of(*w, nodes));
  }
  router.argv.insert(router.argv.end(),
                     {"--host", "0.0.0.0", "--port", std::to_string(frontend_port), "--backend", "atom",
                      "--prometheus-port", std::to_string(router.ports.metrics.front())});
  const auto extra = frontend_flags(r.frontend.args);
  router.argv.insert(router.argv.end(), extra.begin(), extra.end());

  for (const auto& [k, v] : r.environment) set_env(router.env, k, v);
  for (const auto& [k, v] : r.frontend.env) set_env(router.env, k, v);
  router.readiness = {"workers", frontend_port, "/workers"};
  return router;
}

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
  // runs every point; the launcher's per-point steps set one each (issue 24).
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

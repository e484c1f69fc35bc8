// The vLLM Router (vllm-project/router, the `vllm-router` binary) on the head node, as srtctl starts
// it (NVIDIA/srt-slurm src/srtctl/frontends/vllm_router.py and static_router.py): a static list of
// aggregated workers, then srtctl's managed arguments, then frontend.args. Ready when /workers
// lists every DP rank: it expands each URL into the worker's node-local DP ranks.
#include <set>
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

namespace {

// Options srt-spank passes itself: clap refuses a repeated single-value option, so a recipe value
// would stop the router (or, for the ports, move a socket the Plan reserved and audits).
const char* const kRouterManaged[] = {"host", "port", "prometheus-port", "prometheus-host", "worker-urls"};

Process vllm_router(const FrontendSite& s) {
  const Json& args = s.recipe.frontend.args;
  for (auto it = args.begin(); it != args.end(); ++it)
    for (const char* m : kRouterManaged)
      if (normalized_flag(it.key()) == m)
        fail(std::string("frontend.args.") + it.key() + ": --" + m + " is set by srt-spank for the vLLM Router",
             "remove it from frontend.args");

  Process router = router_process(s, "vllm-router", "router");

  // One --intra-node-data-parallel-size for every URL (node_local_data_parallel_size).
  std::set<int> dp;
  router.argv = s.profile.vllm_router_command;
  router.argv.push_back("--worker-urls");
  for (const Process* w : s.workers) {
    if (w->role != Role::agg) fail("the vLLM Router is planned for aggregated vLLM workers only");
    router.argv.push_back(worker_url(*w, s.nodes));
    dp.insert(w->dp_ranks);
  }
  if (dp.size() > 1)
    fail("the vLLM Router needs one node-local data-parallel size for every worker",
         "give every aggregated worker the same data-parallel-size");
  const int local_dp = dp.empty() ? 1 : *dp.begin();
  router.argv.insert(router.argv.end(), {"--host", s.bind_host(), "--port", std::to_string(s.public_port)});
  const Json* configured = find_flag(args, {"intra-node-data-parallel-size"});
  if (configured && int_flag(args, {"intra-node-data-parallel-size"}, -1) != local_dp)
    fail("frontend.args.intra-node-data-parallel-size conflicts with the workers' data-parallel-size " +
             std::to_string(local_dp),
         "drop it: srt-spank derives it, as srtctl does");
  if (local_dp > 1 && !configured)
    router.argv.insert(router.argv.end(), {"--intra-node-data-parallel-size", std::to_string(local_dp)});
  // Workers that have not answered within the window are dropped: srtctl sizes it from the
  // recipe's health check (the same budget the launcher waits for the workers).
  if (!find_flag(args, {"worker-startup-timeout-secs"})) {
    const HealthCheck hc = effective_health_check(s.recipe, s.profile);
    router.argv.insert(router.argv.end(),
                       {"--worker-startup-timeout-secs", std::to_string(hc.max_attempts * hc.interval_seconds)});
  }
  router.argv.insert(router.argv.end(), {"--prometheus-port", std::to_string(router.ports.metrics.front()),
                                         "--prometheus-host", s.bind_host()});
  finish_router(router, s);
  return router;
}

class VllmRouter final : public FrontendAdapter {
 public:
  const char* name() const override { return "vllm-router"; }
  bool runs_process() const override { return true; }
  Process process(const FrontendSite& site) const override { return vllm_router(site); }
  // The router's own request counter is not confirmed for the release InferenceX installs
  // (vllm-router 0.1.14): none is watched rather than a guessed name.
  const char* progress_metric() const override { return ""; }
  bool fronts(const EngineAdapter& engine) const override { return std::string(engine.name()) == "vllm"; }
};

}  // namespace

const FrontendAdapter& vllm_router_frontend() {
  static const VllmRouter frontend;
  return frontend;
}

}  // namespace srt::plan_detail

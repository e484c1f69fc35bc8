// What every router adapter shares (adapters.hpp): the process on the head node with its public
// port and a planned Prometheus port, and the tail after the adapter's own arguments.
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

Process router_process(const FrontendSite& s, const char* adapter, const std::string& log_tag) {
  Process router;
  router.name = "router";
  router.role = Role::router;
  router.node_index = s.head.index;
  router.node = s.head.name;
  router.step_name = "router";
  router.log_file = s.head.name + "_" + log_tag + "_0.out";
  router.adapter = adapter;
  router.ports.http = {s.public_port};
  // Each router serves Prometheus on a fixed default port (29000 for sglang-router, smg and
  // vllm-router): two routers on a node would collide, so it is planned like every other port.
  router.ports.metrics = {s.ports.one("router --prometheus-port")};
  return router;
}

void finish_router(Process& router, const FrontendSite& s) {
  const auto extra = frontend_flags(s.recipe.frontend.args);
  router.argv.insert(router.argv.end(), extra.begin(), extra.end());
  for (const auto& [k, v] : s.recipe.environment) set_env(router.env, k, v);
  for (const auto& [k, v] : s.recipe.frontend.env) set_env(router.env, k, v);
  // srtctl's router health checks (check_sglang_router_health and the vLLM Router's): /workers
  // lists every worker, each DP rank where the router expands them.
  router.readiness = {"workers", s.public_port, "/workers"};
}

bool static_router_disaggregated(const std::vector<const Process*>& workers, const std::string& router) {
  int prefill = 0, decode = 0, agg = 0;
  for (const Process* w : workers) {
    if (w->role == Role::prefill) ++prefill;
    else if (w->role == Role::decode) ++decode;
    else ++agg;
  }
  if (agg > 0 && (prefill > 0 || decode > 0)) fail(router + " cannot mix aggregated and disaggregated workers");
  if (agg > 0) return false;
  if (prefill == 0 || decode == 0)
    fail("a disaggregated router needs both prefill and decode workers",
         "set resources.prefill_workers and resources.decode_workers");
  return true;
}

}  // namespace srt::plan_detail

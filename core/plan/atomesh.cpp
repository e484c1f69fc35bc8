// AToMesh, ATOM's router (`atomesh launch`): static workers, --pd-disaggregation or --worker-urls,
// ready when /workers lists every worker (every DP rank under --dp-aware).
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

namespace {

Process atomesh_router(const FrontendSite& s) {
  const Profile& p = s.profile;
  const int frontend_port = s.public_port;
  const std::vector<const Process*>& workers = s.workers;
  Process router = router_process(s, "atomesh", "atomesh");

  const bool disaggregated = static_router_disaggregated(workers, "the static router");
  router.argv = p.router_command;
  router.argv.push_back("launch");
  if (disaggregated) {
    router.argv.push_back("--pd-disaggregation");
    // ATOM publishes its transfer topology at /kv_transfer_info, so no bootstrap port follows.
    for (const Process* w : workers)
      if (w->role == Role::prefill) router.argv.insert(router.argv.end(), {"--prefill", worker_url(*w, s.nodes)});
    for (const Process* w : workers)
      if (w->role == Role::decode) router.argv.insert(router.argv.end(), {"--decode", worker_url(*w, s.nodes)});
  } else {
    router.argv.push_back("--worker-urls");
    for (const Process* w : workers) router.argv.push_back(worker_url(*w, s.nodes));
  }
  router.argv.insert(router.argv.end(),
                     {"--host", s.bind_host(), "--port", std::to_string(frontend_port), "--backend", "atom",
                      "--prometheus-port", std::to_string(router.ports.metrics.front()), "--prometheus-host",
                      s.bind_host()});
  finish_router(router, s);
  return router;
}

class Atomesh final : public FrontendAdapter {
 public:
  const char* name() const override { return "atomesh"; }
  bool runs_process() const override { return true; }
  Process process(const FrontendSite& site) const override { return atomesh_router(site); }
  const char* progress_metric() const override { return "mesh_http_responses_total"; }  // AToMesh schema.rs
  const char* request_metric() const override { return "mesh_http_requests_total"; }    // {method, path}, the same
  bool fronts(const EngineAdapter& engine) const override { return std::string(engine.name()) == "atom"; }
};

}  // namespace

const FrontendAdapter& atomesh_frontend() {
  static const Atomesh frontend;
  return frontend;
}

}  // namespace srt::plan_detail

// sglang-router (SGLang Model Gateway; smg in newer images): `python -m sglang_router.launch_router`
// on the head node, as srtctl starts it (NVIDIA/srt-slurm src/srtctl/frontends/sglang.py and
// static_router.py): static workers, `--pd-disaggregation --prefill URL BOOTSTRAP --decode URL`
// or `--worker-urls`, started once every worker answers /health (a worker that does not answer
// within the router's startup window is dropped), ready when /workers lists every DP rank.
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

namespace {

Process sglang_router(const FrontendSite& s) {
  Process router = router_process(s, "sglang-router", "router");

  const bool disaggregated = static_router_disaggregated(s.workers, "sglang-router");
  router.argv = s.profile.sglang_router_command;
  if (disaggregated) {
    router.argv.push_back("--pd-disaggregation");
    // Each prefill URL is followed by its bootstrap port: the router hands it to decode, which
    // fetches the KV from there (a missing one makes decode use its own default, 8998).
    for (const Process* w : s.workers)
      if (w->role == Role::prefill) {
        router.argv.insert(router.argv.end(), {"--prefill", worker_url(*w, s.nodes)});
        if (!w->ports.bootstrap.empty()) router.argv.push_back(std::to_string(w->ports.bootstrap.front()));
      }
    for (const Process* w : s.workers)
      if (w->role == Role::decode) router.argv.insert(router.argv.end(), {"--decode", worker_url(*w, s.nodes)});
  } else {
    router.argv.push_back("--worker-urls");
    for (const Process* w : s.workers) router.argv.push_back(worker_url(*w, s.nodes));
  }
  router.argv.insert(router.argv.end(), {"--host", s.bind_host(), "--port", std::to_string(s.public_port),
                                         "--prometheus-port", std::to_string(router.ports.metrics.front()),
                                         "--prometheus-host", s.bind_host()});
  finish_router(router, s);
  return router;
}

class SglangRouter final : public FrontendAdapter {
 public:
  const char* name() const override { return "sglang-router"; }
  bool runs_process() const override { return true; }
  Process process(const FrontendSite& site) const override { return sglang_router(site); }
  // smg's (sgl-model-gateway) response counter; sglang-router 0.3.2 named its own sgl_router_*.
  const char* progress_metric() const override { return "smg_http_responses_total"; }
  // "Total HTTP requests by path/method" (sgl-model-gateway's metrics reference).
  const char* request_metric() const override { return "smg_http_requests_total"; }
  bool fronts(const EngineAdapter& engine) const override { return std::string(engine.name()) == "sglang"; }
};

}  // namespace

const FrontendAdapter& sglang_router_frontend() {
  static const SglangRouter frontend;
  return frontend;
}

}  // namespace srt::plan_detail

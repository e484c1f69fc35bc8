// Every worker, and every DP rank of a DP-attention worker, answers one completion before the
// router starts (docs/design.md "The batch step"): a wedged rank still answers /health (the
// server's, not the rank's) and would otherwise hang the benchmark's first requests that land on
// it.
//
// Why directly and not through the router: AToMesh cannot be told which rank to use. Under
// --dp-aware it registers one worker per rank ("URL@r", AToMesh's core/worker_builder.rs) and
// writes the rank it chose into every body itself (DPAwareWorker::prepare_request, core/worker.rs,
// for P/D; routers/http_router.rs otherwise), replacing any "data_parallel_rank" a client sent; the
// policy picks the rank (round_robin only visits every rank when nothing else is in flight).
// ATOM's /v1/completions takes the same field and pins the request to that rank
// (atom/entrypoints/openai/protocol.py CompletionRequest, engine_core_mgr.py
// _dispatch_to_dp_ranks; ROCm/ATOM at ffdf3bb), so the launcher sends each rank its canary the
// way the router would. The canary has no kv_transfer_params: a prefill or decode server serves
// it alone, so a rank is tested without its peer. An SGLang P/D server does that only with the
// fields its own warmup sends (srt/engines.hpp canary_fields).
#include <algorithm>
#include <cstdio>

#include "machine_impl.hpp"
#include "probe.hpp"
#include "srt/engines.hpp"

namespace srt::launch {
namespace {

constexpr int kRankCanaryReadSeconds = 10;  // one try; a wedged rank is tried again until the deadline
constexpr std::chrono::milliseconds kRankCanaryRetry{200};

std::string first_model(const ProbeResult& models) {
  if (!models.ok) return {};
  const Json j = Json::parse(models.body, nullptr, false);
  if (j.is_object() && j.contains("data") && j["data"].is_array() && !j["data"].empty() && j["data"][0].is_object() &&
      j["data"][0].contains("id") && j["data"][0]["id"].is_string())
    return j["data"][0]["id"].get<std::string>();
  return {};
}

}  // namespace

std::string Launch::model_of(const std::string& host, int port) { return first_model(http_get(host, port, "/v1/models")); }

void Launch::canary_ranks() {
  std::vector<const Process*> workers;
  for (const auto& p : job_.plan.processes)
    if (p.is_worker()) workers.push_back(&p);
  if (workers.empty()) return;
  enter("ranks");
  const double started = console_.seconds(), deadline = started + job_.health_budget_seconds;
  int canaries = 0, ranks = 0;
  for (const Process* w : workers) {
    const std::string host = address(*w);
    const int port = w->readiness.port;
    Json body = {{"prompt", "srt-spank rank canary"}, {"max_tokens", 1}, {"temperature", 0}, {"stream", false}};
    const Json extra = canary_fields(*w);
    for (auto it = extra.begin(); it != extra.end(); ++it) body[it.key()] = it.value();
    if (const std::string model = model_of(host, port); !model.empty()) body["model"] = model;
    for (int r = 0; r < w->dp_ranks; ++r) {
      // A single-rank engine ignores the hint; it is left out rather than relied on.
      if (w->dp_ranks > 1) body["data_parallel_rank"] = r;
      const std::string rank = w->dp_ranks > 1 ? "DP rank " + std::to_string(r) + " of " + std::to_string(w->dp_ranks)
                                               : "its one DP rank";
      int tries = 0;
      std::string why;
      // One deadline for every rank of every worker: what the ones before took is spent.
      const bool answered = sys::poll_until(std::max(0.0, deadline - console_.seconds()), kRankCanaryRetry, [&] {
        check();
        ++canaries, ++tries;
        const ProbeResult res = http_post_json(host, port, "/v1/completions", body.dump(), kRankCanaryReadSeconds);
        if (res.ok) return true;
        why = res.why + (res.body.empty() ? "" : ": " + res.body.substr(0, 200));
        if (tries == 1) console_.line("ranks: " + w->name + " " + rank + ": " + why + "; trying again until the deadline");
        return false;
      });
      if (!answered)
        throw failed(Cause::not_healthy,
                     w->name + " on " + w->node + ": " + rank + " did not answer a canary completion within " +
                         std::to_string(job_.health_budget_seconds) + " s (" + std::to_string(tries) +
                         (tries == 1 ? " try: " : " tries; the last: ") + why + "), though the server answers /health: a wedged rank; " +
                         std::to_string(ranks) + " rank(s) before it answered",
                     {w->node});
      ++ranks;
    }
  }
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", console_.seconds() - started);
  console_.line("ranks: every worker's DP ranks answered a canary completion (" + std::to_string(ranks) + " rank(s) of " +
                std::to_string(workers.size()) + " worker(s), " + std::to_string(canaries) + " request(s), " + took + " s)");
}

}  // namespace srt::launch

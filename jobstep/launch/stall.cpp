#include "stall.hpp"

#include <filesystem>

#include "probe.hpp"
#include "srt/prometheus.hpp"

namespace srt::launch {
namespace {

constexpr double kPollSeconds = 2;  // a few HTTP GETs; ATOM's own counters move every 5 s
constexpr const char* kRouterMetric = "mesh_http_responses_total";        // AToMesh schema.rs
// Only answered requests are progress: a wedged engine's 5xx (within the router's request
// timeout) or a stranger's requests against the router would keep a dead benchmark alive.
constexpr const char* kRouterSuccess = "status_code=\"200\"";
constexpr const char* kEngineMetric = "atom:requests_finished_total";     // ATOM metrics.py


}  // namespace

StallWatch::StallWatch(const Job& job, double timeout_seconds, double now)
    : timeout_(timeout_seconds), last_change_(now) {
  const Plan& plan = job.plan;
  for (const auto& p : plan.processes) {
    const std::string host = plan.nodes.at(std::size_t(p.node_index)).address;
    if (p.role == Role::router && !p.ports.metrics.empty())
      sources_.push_back({host, p.ports.metrics.front(), kRouterMetric});
    else if (p.is_worker() && p.readiness.kind == "http")
      sources_.push_back({host, p.readiness.port, kEngineMetric});
  }
  if (!job.results_dir.empty()) results_ = job.results_dir + "/" + std::to_string(plan.job_id) + "/fixed-seq";
}

std::string StallWatch::sample() {
  double router = -1, engines = -1;
  for (const auto& s : sources_) {
    const ProbeResult r = http_get(s.host, s.port, "/metrics");
    if (!r.ok) continue;  // a worker that does not answer /metrics is not progress either
    if (const auto v = prometheus_sum(r.body, s.metric, s.metric == kRouterMetric ? kRouterSuccess : "")) {
      double& total = s.metric == kRouterMetric ? router : engines;
      total = (total < 0 ? 0 : total) + *v;
    }
  }
  long files = 0;
  std::error_code ec;
  if (!results_.empty())
    for (std::filesystem::directory_iterator it(results_, ec), end; !ec && it != end; it.increment(ec)) ++files;
  router_ = router, engines_ = engines, files_ = files;
  // Any change is activity (a restarted engine's counter starts again from 0); only none is a stall.
  return std::to_string(router) + "/" + std::to_string(engines) + "/" + std::to_string(files);
}

bool StallWatch::stalled(double now) {
  if (timeout_ <= 0) return false;
  if (last_poll_ >= 0 && now - last_poll_ < kPollSeconds) return now - last_change_ >= timeout_;
  last_poll_ = now;
  const std::string s = sample();
  if (s != last_) {
    last_ = s;
    last_change_ = now;
  }
  return now - last_change_ >= timeout_;
}

std::string StallWatch::seen() const {
  auto count = [](double v) { return v < 0 ? std::string("unreadable") : std::to_string(static_cast<long long>(v)); };
  return std::string("router ") + kRouterMetric + "{" + kRouterSuccess + "} " + count(router_) + ", engines' " + kEngineMetric + " " +
         count(engines_) + ", " + std::to_string(files_) + " result file(s)";
}

}  // namespace srt::launch

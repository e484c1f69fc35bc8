#include "stall.hpp"

#include <filesystem>

#include "probe.hpp"
#include "srt/engines.hpp"
#include "srt/prometheus.hpp"

namespace srt::launch {
namespace {

constexpr double kStallPollSeconds = 2;  // a few HTTP GETs; ATOM's own counters move every 5 s

// The counters the sources read, for seen(): each named once, "/" between them when they differ.
void name_into(std::string& names, const std::string& metric) {
  if (names.find(metric) == std::string::npos) names += (names.empty() ? "" : "/") + metric;
}

}  // namespace

StallWatch::StallWatch(const Job& job, double timeout_seconds, double now)
    : timeout_(timeout_seconds), last_change_(now) {
  const Plan& plan = job.plan;
  for (const ProgressSource& src : progress_sources(plan)) {
    const bool router = src.process->role == Role::router;
    sources_.push_back({plan.nodes.at(std::size_t(src.process->node_index)).address, src.port, src.metric, src.label, router});
    name_into(router ? router_metric_ : engine_metric_, src.metric + (src.label.empty() ? "" : "{" + src.label + "}"));
  }
  if (!job.results_dir.empty()) results_ = job.results_dir + "/" + std::to_string(plan.job_id) + "/fixed-seq";
}

std::string StallWatch::sample() {
  double router = -1, engines = -1;
  for (const auto& s : sources_) {
    const ProbeResult r = http_get(s.host, s.port, "/metrics");
    if (!r.ok) continue;  // a worker that does not answer /metrics is not progress either
    if (const auto v = prometheus_sum(r.body, s.metric, s.label)) {
      double& total = s.router ? router : engines;
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
  if (last_poll_ >= 0 && now - last_poll_ < kStallPollSeconds) return now - last_change_ >= timeout_;
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
  std::string out;
  if (!router_metric_.empty()) out += "router " + router_metric_ + " " + count(router_) + ", ";
  if (!engine_metric_.empty()) out += "engines' " + engine_metric_ + " " + count(engines_) + ", ";
  return out + std::to_string(files_) + " result file(s)";
}

}  // namespace srt::launch

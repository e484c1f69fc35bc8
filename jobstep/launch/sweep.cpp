#include "sweep.hpp"


namespace srt::launch {

std::vector<SweepPoint> sweep_points(const Plan& plan, const std::vector<int>& points) {
  std::vector<SweepPoint> out;
  const Process* bench = plan.find("benchmark");
  if (!bench) return out;
  for (int c : points) {
    SweepPoint pt;
    pt.concurrency = c;
    pt.process = *bench;
    const std::string tag = "c" + std::to_string(c);
    pt.process.name = bench->name + ":" + tag;
    pt.process.step_name = bench->step_name + "_" + tag;  // sacct and squeue show which point runs
    // One log for the sweep, srtctl's benchmark.out: each point's step appends to it.
    bool set = false;
    for (auto& [k, v] : pt.process.env)
      if (k == kBenchmarkPointsVariable) v = std::to_string(c), set = true;
    if (!set) pt.process.env.emplace_back(kBenchmarkPointsVariable, std::to_string(c));
    out.push_back(std::move(pt));
  }
  return out;
}

void close_points(std::vector<SweepPoint>& points, const std::string& reason) {
  for (auto& pt : points) {
    if (pt.state == "running") pt.state = "failed", pt.reason = reason;
    else if (pt.state == "pending") pt.state = "not_run", pt.reason = reason;
  }
}

void points_to_status(const std::vector<SweepPoint>& points, Json& status) {
  if (points.empty()) return;
  Json states = Json::object(), codes = Json::object();
  for (const auto& pt : points) {
    const std::string key = std::to_string(pt.concurrency);
    Json p = {{"state", pt.state}, {"step_name", pt.process.step_name}, {"log", pt.process.log_file}};
    if (!pt.reason.empty()) p["reason"] = pt.reason;
    if (pt.interrupted > 0) p["interrupted_runs"] = pt.interrupted;
    if (pt.audit)
      p["request_audit"] = {{"counter", pt.audit->counter}, {"seen", static_cast<long long>(pt.audit->seen)},
                            {"requested", pt.audit->requested}, {"warmups", pt.audit->warmups},
                            {"completed", pt.audit->completed}};
    states[key] = std::move(p);
    if (pt.exit_code) codes[key] = *pt.exit_code;
  }
  status["benchmark_points"] = std::move(states);
  status["benchmark_exit_codes"] = std::move(codes);
}

std::string points_summary(const std::vector<SweepPoint>& points) {
  // Consecutive points with the same state and reason are named once: "c768, c1024 not run: ...".
  std::string out;
  for (std::size_t i = 0; i < points.size();) {
    std::size_t j = i;
    std::string names;
    while (j < points.size() && points[j].state == points[i].state && points[j].reason == points[i].reason)
      names += (names.empty() ? "c" : ", c") + std::to_string(points[j++].concurrency);
    const std::string state = points[i].state == "not_run" ? "not run" : points[i].state;
    out += (out.empty() ? "" : "; ") + names + " " + state + (points[i].reason.empty() ? "" : ": " + points[i].reason);
    i = j;
  }
  return out;
}

}  // namespace srt::launch

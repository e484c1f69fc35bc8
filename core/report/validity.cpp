#include "srt/validity.hpp"

#include <algorithm>
#include <set>

#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {

PointResult missing_point(int concurrency, const std::string& file, const std::string& why) {
  PointResult r;
  r.concurrency = concurrency;
  r.file = file;
  r.problem = why;
  return r;
}

PointResult judge_point_text(int concurrency, const std::string& file, const std::string& text) {
  const Json j = parse_untrusted_json(text);
  if (j.is_discarded() || !j.is_object()) return missing_point(concurrency, file, "not a benchmark result (not a JSON object, or nested deeper than any is)");
  PointResult r;
  r.concurrency = concurrency;
  r.file = file;
  try {
    const report::Point p = report::point_from_result(j, file, concurrency, report::GpuCount{});
    r.completed = int(p.completed);
    r.requested = p.num_prompts;
    r.output_tokens = p.total_output_tokens;
    r.problem = p.failure;
  } catch (const Error& e) {
    r.problem = e.what();
  }
  return r;
}

std::string SweepVerdict::problems(std::size_t limit) const {
  std::string out;
  std::size_t shown = 0, bad = 0;
  for (const auto& p : points) {
    if (p.problem.empty()) continue;
    if (++bad > limit) continue;
    out += (shown++ ? "; " : "") + ("c" + std::to_string(p.concurrency) + ": " + p.problem);
  }
  if (bad > limit) out += "; and " + std::to_string(bad - limit) + " more";
  return out;
}

SweepVerdict judge_sweep(const std::vector<int>& planned, const std::map<int, PointResult>& found) {
  std::set<int> points(planned.begin(), planned.end());
  for (const auto& [c, _] : found) points.insert(c);
  SweepVerdict v;
  for (int c : points) {
    const auto it = found.find(c);
    v.points.push_back(it == found.end() ? missing_point(c) : it->second);
  }
  v.valid = !v.points.empty() &&
            std::all_of(v.points.begin(), v.points.end(), [](const PointResult& p) { return p.problem.empty(); });
  return v;
}

}  // namespace srt

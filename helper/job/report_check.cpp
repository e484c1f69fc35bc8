#include "report_check.hpp"

#include <cstdio>
#include <cstdlib>

#include "srt/collector_rules.hpp"
#include "srt/expected_points.hpp"
#include "srt/result_files.hpp"

namespace srt::helper {

bool check_results_tree(const std::string& dir, const std::vector<int>& expected) {
  const std::vector<report::TreeFile> files = collect_result_tree(dir);
  // No recipe here: the threshold the shell's environment gives, as srt_agentic.sh takes it.
  const report::CollectorVerdict v =
      report::judge_collector_tree(files, expected, agentic_max_error_rate(Recipe{}, std::getenv("AIPERF_FAILED_REQUEST_THRESHOLD")));
  std::string points;
  for (int c : v.expected) points += " " + std::to_string(c);
  std::printf("%s: %s (%zu result files; expected points:%s)\n", dir.c_str(), v.valid ? "passes" : "FAILS",
              v.points.size(), points.empty() ? " none" : points.c_str());
  for (const auto& p : v.problems()) std::printf("  %s\n", p.c_str());
  return v.valid;
}

}  // namespace srt::helper

// Whose requests a benchmark point measured (docs/security.md "The network"). The router's metrics port and
// the workers' are open to anyone who can reach them (docs/security.md "Listeners"): a stranger's
// requests served during a point take the engines' time, and the benchmark's numbers then describe
// a load it did not make. Per point, the launcher compares what the router (or the one serving
// engine) counted during the point with what the benchmark says it sent and completed.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace srt::launch {

struct PointAudit {
  std::string counter;         // what was counted, as the message names it
  double seen = 0;             // that counter's growth over the point
  long long completed = 0;     // the benchmark's own result: requests that succeeded,
  long long requested = 0;     // that it sent in its measured run (num_prompts),
  long long warmups = 0;       // and before it (benchmark_serving.py --num-warmups, from its log)
};

// "" when the counts agree: every request the benchmark completed went through the counter, and
// the counter saw no more than the benchmark sent (measured run and warm-ups, failed ones
// included). Otherwise why the point is contaminated, for people.
std::string point_contamination(const PointAudit& a);

// The warm-up requests a benchmark's console output says it sent: the last "Warming up with N
// requests..." (InferenceX's and vLLM's benchmark_serving.py), 0 when it says none. nullopt when
// a count is there but unreadable (not a number, or beyond any benchmark's).
std::optional<long long> warmups_in_log(std::string_view log);

}  // namespace srt::launch

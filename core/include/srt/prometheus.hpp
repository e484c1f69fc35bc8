// Counters read from a Prometheus text exposition (what ATOM's and AToMesh's /metrics answer):
// the launcher watches them to tell a benchmark that makes progress from one that stalls.
// Network input: a line that does not parse is skipped, never an error.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace srt {

// The sum of every sample of `metric` (all label sets), e.g. mesh_http_responses_total over its
// status codes; nullopt when no sample of that exact name is in `text`. Non-finite values are
// skipped.
// `label` (e.g. `status_code="200"`, written as the exposition writes it): only the samples whose
// label set holds that pair; "" = all.
std::optional<double> prometheus_sum(std::string_view text, std::string_view metric, std::string_view label = {});

// One sample line of `metric`: its labels (values unescaped) and its value as written (NaN and
// +Inf included: the caller judges them). A line whose label set or value does not parse is
// skipped.
struct PrometheusSample {
  std::map<std::string, std::string> labels;
  double value = 0;
};
std::vector<PrometheusSample> prometheus_samples(std::string_view text, std::string_view metric);

}  // namespace srt

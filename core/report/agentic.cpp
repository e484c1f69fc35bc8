#include "srt/agentic_result.hpp"

#include <regex>

#include "srt/untrusted_json.hpp"

namespace srt::report {

namespace {

constexpr long long kMaxCount = 1LL << 40;  // more requests than any benchmark makes

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100);
  return buf;
}

}  // namespace

std::optional<int> agentic_concurrency(const std::string& text) {
  const Json j = parse_untrusted_json(text);
  if (j.is_discarded() || !j.is_object() || json_field::text(j, "scenario_type") != std::string("agentic-coding"))
    return std::nullopt;
  const auto conc = json_field::integer(j, "conc", 1, 1 << 30);
  if (!conc) return std::nullopt;
  return int(*conc);
}

std::optional<int> agentic_name_concurrency(const std::string& file_name) {
  static const std::regex re(".*_conc([0-9]{1,9})\\.json");
  std::smatch m;
  if (!std::regex_match(file_name, m, re)) return std::nullopt;
  return std::stoi(m[1].str());
}

PointResult judge_agentic_text(int concurrency, const std::string& file, const std::string& text,
                               double max_error_rate, bool invalid_marker) {
  PointResult p;
  p.concurrency = concurrency;
  p.file = file;
  const auto fail = [&](const std::string& why) {
    p.problem += (p.problem.empty() ? "" : "; ") + why;
  };
  const Json j = parse_untrusted_json(text);
  if (j.is_discarded() || !j.is_object()) {
    fail("not an AgentX aggregate (not a JSON object)");
    return p;
  }
  const auto conc = json_field::integer(j, "conc", 1, 1 << 30);
  if (conc != concurrency)
    fail("conc " + (j.contains("conc") ? json_excerpt(j["conc"]) : std::string("missing")) + " is not the point's " +
         std::to_string(concurrency));
  const auto ok = json_field::integer(j, "num_requests_successful", 0, kMaxCount);
  if (!ok || *ok == 0)
    fail("num_requests_successful is " + (j.contains("num_requests_successful") ? json_excerpt(j["num_requests_successful"])
                                                                               : std::string("missing")) +
         ": no request succeeded");
  else
    p.completed = int(std::min<long long>(*ok, 1 << 30));
  // The error rate as InferenceX's scripts take it: request_accounting's profiled and error-dropped
  // records when present (warmup drops are not failures), else total against successful.
  long long errors = 0, total = 0;
  const Json& accounting = json_field::object(j, "request_accounting");
  const auto profiled = json_field::integer(accounting, "records_profiled", 0, kMaxCount);
  const auto dropped = json_field::integer(accounting, "records_error_dropped", 0, kMaxCount);
  if (profiled && dropped) {
    errors = *dropped;
    total = *profiled + *dropped;
  } else if (const auto all = json_field::integer(j, "num_requests_total", 0, kMaxCount); all && ok && *all >= *ok) {
    errors = *all - *ok;
    total = *all;
  }
  if (total > 0 && double(errors) / double(total) > max_error_rate)
    fail(std::to_string(errors) + " of " + std::to_string(total) + " requests failed (" +
         percent(double(errors) / double(total)) + ", more than the " + percent(max_error_rate) + " allowed)");
  // The output tokens of the profiling window: its output throughput over its duration (the
  // aggregate's tokens are per-request statistics, not a total).
  const Json& throughput = json_field::object(json_field::object(j, "request_metrics"), "throughput");
  const Json* rate = throughput.contains("output") ? &throughput["output"] : nullptr;
  const Json* seconds = throughput.contains("duration_seconds") ? &throughput["duration_seconds"] : nullptr;
  if (rate && seconds && rate->is_number() && seconds->is_number() && !rate->is_boolean() && !seconds->is_boolean()) {
    const double tokens = rate->get<double>() * seconds->get<double>();
    if (tokens >= 0 && tokens < double(kMaxCount)) p.output_tokens = static_cast<long long>(tokens + 0.5);
  }
  if (invalid_marker) fail("RUN_INVALID.json beside it: the benchmark marked the run invalid");
  return p;
}

}  // namespace srt::report

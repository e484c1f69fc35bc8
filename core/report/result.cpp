// One benchmark_serving.py result -> one point, with InferenceX's derived figures and the same
// validity gate the launcher applies (zero completed or zero output tokens fails the job), plus
// benchmark_serving.py's own exit rule (more than 5 % of the prompts failed -> exit non-zero).
#include <cstdio>
#include <string>

#include "fields.hpp"
#include "srt/collector_rules.hpp"
#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/untrusted_json.hpp"

namespace srt::report {

using detail::number_or;
using detail::required_number;

namespace {

Latency latency(const Json& r, const std::string& metric, const std::string& file) {
  Latency l;
  l.median_ms = number_or(r, "median_" + metric + "_ms", 0, file);
  l.p99_ms = number_or(r, "p99_" + metric + "_ms", 0, file);
  return l;
}

// Counts benchmark_serving.py writes: whole numbers of requests (at most a billion: the
// validity gate keeps them in an int) or tokens. A negative one, or 1e300, is not its file, and
// refusing it keeps the rounding defined and no count wraps into one that passes the gate.
constexpr double kMaxRequests = 1e9;
constexpr double kMaxTokens = 1e15;

long count(const Json& r, const std::string& key, const std::string& file, bool required, double max) {
  const double v = required ? required_number(r, key, file) : number_or(r, key, 0, file);
  if (!(v >= 0 && v <= max))
    detail::bad_field(file, key, "expected a count (a whole number from 0 to " + std::to_string(static_cast<long long>(max)) + "), got " +
                                     json_excerpt(r.at(key)),
                      "benchmark_serving.py writes counts here; the file was edited or comes from another tool");
  return static_cast<long>(v + 0.5);
}

void add_reason(std::string& failure, const std::string& reason) {
  failure += (failure.empty() ? "" : "; ") + reason;
}

}  // namespace

Point point_from_result(const Json& r, const std::string& file, int concurrency, const GpuCount& gpus,
                        std::optional<int> exit_code) {
  if (!r.is_object())
    detail::bad_field(file, "", "expected a JSON object, got " + detail::json_type(r),
                      "not a benchmark_serving.py result; remove the file or rerun the point");
  Point p;
  p.concurrency = concurrency;
  p.file = file;
  p.num_prompts = count(r, "num_prompts", file, true, kMaxRequests);
  p.completed = count(r, "completed", file, true, kMaxRequests);
  p.failed_requests = p.num_prompts > p.completed ? p.num_prompts - p.completed : 0;
  p.total_input_tokens = count(r, "total_input_tokens", file, false, kMaxTokens);
  p.total_output_tokens = count(r, "total_output_tokens", file, true, kMaxTokens);
  p.duration_s = number_or(r, "duration", 0, file);
  p.request_throughput = required_number(r, "request_throughput", file);
  p.output_throughput = required_number(r, "output_throughput", file);
  p.total_token_throughput = required_number(r, "total_token_throughput", file);
  p.ttft = latency(r, "ttft", file);
  p.tpot = latency(r, "tpot", file);
  p.itl = latency(r, "itl", file);
  p.e2el = latency(r, "e2el", file);

  // InferenceX process_result.py: intvty = 1000 / tpot, only when tpot > 0.
  p.interactivity = p.tpot.median_ms > 0 ? 1000.0 / p.tpot.median_ms : 0;
  if (gpus.total > 0) {
    p.output_per_gpu = p.output_throughput / gpus.total;
    p.total_per_gpu = p.total_token_throughput / gpus.total;
  }
  const int decode = gpus.disagg() ? gpus.decode : gpus.total;
  const int prefill = gpus.disagg() ? gpus.prefill : gpus.total;
  if (decode > 0) p.output_per_decode_gpu = p.output_throughput / decode;
  if (prefill > 0) p.input_per_prefill_gpu = (p.total_token_throughput - p.output_throughput) / prefill;

  if (exit_code && *exit_code != 0) add_reason(p.failure, "benchmark exited with status " + std::to_string(*exit_code));
  if (p.completed == 0) {
    add_reason(p.failure, "no request completed (0 of " + std::to_string(p.num_prompts) + ")");
  } else {
    if (p.total_output_tokens == 0) add_reason(p.failure, "no output tokens");
    if (p.num_prompts > 0 && double(p.failed_requests) / double(p.num_prompts) > kMaxFailureRate) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * double(p.failed_requests) / double(p.num_prompts));
      add_reason(p.failure, std::to_string(p.failed_requests) + " of " + std::to_string(p.num_prompts) +
                                " requests failed (" + pct + "; benchmark_serving.py exits non-zero above 5%)");
    }
  }
  p.state = p.failure.empty() ? PointState::ok : PointState::failed;
  return p;
}

GpuCount gpus_from_plan(const Json& plan, const std::string& file) {
  if (!plan.is_object()) detail::bad_field(file, "", "expected the Plan JSON object, got " + detail::json_type(plan));
  auto procs = plan.find("processes");
  if (procs == plan.end() || !procs->is_array())
    detail::bad_field(file, "processes", "missing or not a list", "write it with `srt-helper plan --json`");
  GpuCount g;
  g.source = "plan.json";
  for (std::size_t i = 0; i < procs->size(); ++i) {
    const Json& p = (*procs)[i];
    const std::string at = "processes[" + std::to_string(i) + "]";
    if (!p.is_object()) detail::bad_field(file, at, "expected an object, got " + detail::json_type(p));
    auto role = p.find("role");
    if (role == p.end() || !role->is_string()) detail::bad_field(file, at + ".role", "missing or not a string");
    auto gpus = p.find("gpus");
    const std::string r = role->get<std::string>();
    if (r != "prefill" && r != "decode" && r != "agg") continue;
    if (gpus == p.end() || !gpus->is_array())
      detail::bad_field(file, at + ".gpus", "missing or not a list", "a worker process lists its node-local GPUs");
    const int n = static_cast<int>(gpus->size());
    (r == "prefill" ? g.prefill : r == "decode" ? g.decode : g.agg) += n;
    g.total += n;
  }
  if (g.total == 0)
    detail::bad_field(file, "processes", "no prefill, decode or agg process holds a GPU",
                      "pass --gpus N to say how many GPUs served the run");
  return g;
}

}  // namespace srt::report

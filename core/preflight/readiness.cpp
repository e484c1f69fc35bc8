#include "srt/readiness.hpp"

#include "srt/untrusted_json.hpp"

namespace srt {

namespace {

// More workers than any job has; a larger count is not AToMesh's.
constexpr long long kMaxWorkers = 1 << 20;

}  // namespace

Readiness router_workers_ready(std::string_view body, int prefill, int decode) {
  Readiness r;
  const Json answer = parse_untrusted_json(body);
  const Json& stats = json_field::object(answer, "stats");
  if (answer.is_discarded() || !answer.is_object() || !answer.contains("stats") || !answer["stats"].is_object()) {
    r.why = "/workers answered without a stats object";
    return r;
  }
  long long counts[3] = {0, 0, 0};
  const char* const keys[3] = {"prefill_count", "decode_count", "regular_count"};
  for (int i = 0; i < 3; ++i) {
    if (!stats.contains(keys[i])) continue;
    const auto n = json_field::integer(stats, keys[i], 0, kMaxWorkers);
    if (!n) {
      r.why = std::string("/workers stats.") + keys[i] + " is not a worker count: " + json_excerpt(stats[keys[i]]);
      return r;
    }
    counts[i] = *n;
  }
  const long long p = counts[0], d = counts[1] + counts[2];
  // Aggregated workers are the router's regular ones, counted where decode workers are.
  r.why = prefill == 0 && counts[1] == 0
              ? "router sees " + std::to_string(d) + "/" + std::to_string(decode) + " aggregated worker(s) (DP ranks)"
              : "router sees prefill " + std::to_string(p) + "/" + std::to_string(prefill) + ", decode " +
                    std::to_string(d) + "/" + std::to_string(decode);
  r.extra = p > prefill || d > decode;
  r.ready = p == prefill && d == decode;
  if (r.extra) r.why += ": more than the Plan has, so something else registered with the router";
  return r;
}

}  // namespace srt

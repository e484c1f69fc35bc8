#include "srt/readiness.hpp"

#include "../plan/adapters.hpp"
#include "srt/plan.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {

namespace {

// More workers than any job has; a larger count is not AToMesh's.
constexpr long long kMaxWorkers = 1 << 20;

// "URL@<digits>" (a DP-aware router's entry for one rank) -> URL; anything else as it is.
std::string_view without_rank(std::string_view url) {
  const std::size_t at = url.rfind('@');
  if (at == std::string_view::npos || at + 1 == url.size()) return url;
  for (std::size_t i = at + 1; i < url.size(); ++i)
    if (url[i] < '0' || url[i] > '9') return url;
  return url.substr(0, at);
}

// The first entry of /workers' list that is none of the planned URLs, as an excerpt; "" if none.
std::string stranger(const Json& answer, const std::set<std::string>& planned) {
  const Json& list = json_field::array(answer, "workers");
  for (const Json& w : list) {
    if (!w.is_object() || !w.contains("url")) return "an entry without a url: " + json_excerpt(w);
    if (!w["url"].is_string()) return "a url that is not text: " + json_excerpt(w["url"]);
    const std::string& url = w["url"].get_ref<const std::string&>();
    if (!planned.count(std::string(without_rank(url)))) return json_excerpt(w["url"]);
  }
  return "";
}

}  // namespace

std::set<std::string> planned_worker_urls(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& p : plan.processes)
    if (p.is_worker() && !p.ports.http.empty()) out.insert(plan_detail::worker_url(p, plan.nodes));
  return out;
}

Readiness router_workers_ready(std::string_view body, int prefill, int decode, const std::set<std::string>* planned) {
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
  if (planned && !r.extra) {
    if (const std::string who = stranger(answer, *planned); !who.empty()) {
      r.extra = true;
      r.ready = false;
      r.why += ": it lists " + who + ", which is none of the Plan's workers, so something else registered with the router";
    }
  }
  return r;
}

}  // namespace srt

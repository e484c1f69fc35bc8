// srtctl's restart policy and its record (srt/restart_policy.hpp). The semantics are srtctl
// v2.18's: docs/topology.md "restart" and src/srtctl/core/supervisor.py (WorkerSupervisor: an
// exit the policy does not take is released to `critical`; the restart count is checked before
// it is raised; RestartEvent and summary() for the record).
#include "srt/restart_policy.hpp"

#include <algorithm>
#include <cmath>

namespace srt {

namespace {

const char* const kKeys[] = {"policy", "max_restarts", "backoff_seconds", "max_backoff_seconds"};

std::optional<RestartWhen> when_of(const std::string& s) {
  if (s == "never") return RestartWhen::never;
  if (s == "on-failure") return RestartWhen::on_failure;
  if (s == "always") return RestartWhen::always;
  return std::nullopt;
}

void policy_name(const Json& v, const std::string& key, RestartPolicy& p, std::vector<RestartPolicyProblem>& problems) {
  const auto w = v.is_string() ? when_of(v.get<std::string>()) : std::nullopt;
  if (w) {
    p.when = *w;
    return;
  }
  problems.push_back({key, "expected never, on-failure or always, got " + v.dump(),
                      "on-failure relaunches after a non-zero exit; always after any exit"});
}

// A JSON number at least 0 (YAML's true is no number); integral when `integral`.
std::optional<double> non_negative(const Json& v, const std::string& key, bool integral,
                                   std::vector<RestartPolicyProblem>& problems) {
  const bool number = v.is_number() && !v.is_boolean();
  const double d = number ? v.get<double>() : 0;
  if (!number || !std::isfinite(d) || d < 0 || (integral && (d != std::floor(d) || d > 1e6))) {
    problems.push_back({key, std::string("expected ") + (integral ? "a whole number" : "a number of seconds") + " of 0 or more, got " + v.dump(),
                        key == "max_restarts" ? "relaunches per worker over the whole job (default 3)" : ""});
    return std::nullopt;
  }
  return d;
}

}  // namespace

const char* to_string(RestartWhen w) {
  switch (w) {
    case RestartWhen::never: return "never";
    case RestartWhen::on_failure: return "on-failure";
    case RestartWhen::always: return "always";
  }
  return "never";
}

bool RestartPolicy::restarts_on(int exit_code) const {
  return when == RestartWhen::always || (when == RestartWhen::on_failure && exit_code != 0);
}

double RestartPolicy::backoff(int attempt) const {
  // 10 s, 20 s, 40 s, ... capped; the exponent is bounded so that a long job cannot overflow it.
  const double doubled = backoff_seconds * std::pow(2.0, std::clamp(attempt, 1, 60) - 1);
  return std::min(doubled, max_backoff_seconds);
}

std::optional<RestartPolicy> parse_restart_policy(const Json& v, std::vector<RestartPolicyProblem>& problems) {
  const std::size_t before = problems.size();
  RestartPolicy p;
  if (v.is_null()) return p;
  if (v.is_string()) {
    policy_name(v, "", p, problems);
  } else if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& k = it.key();
      if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys)) {
        problems.push_back({k, "unknown key '" + k + "'", "a restart policy has policy, max_restarts, backoff_seconds and max_backoff_seconds"});
      } else if (k == "policy") {
        policy_name(*it, k, p, problems);
      } else if (k == "max_restarts") {
        if (auto n = non_negative(*it, k, true, problems)) p.max_restarts = static_cast<int>(*n);
      } else if (auto s = non_negative(*it, k, false, problems)) {
        (k == "backoff_seconds" ? p.backoff_seconds : p.max_backoff_seconds) = *s;
      }
    }
  } else {
    problems.push_back({"", "expected never, on-failure, always or a mapping, got " + v.dump(),
                        "write restart: on-failure, or restart: {policy: on-failure, max_restarts: 3}"});
  }
  if (problems.size() != before) return std::nullopt;
  return p;
}

RestartDecision decide_restart(const RestartPolicy& p, int exit_code, int restarts_so_far) {
  RestartDecision d;
  if (!p.restarts_on(exit_code)) return d;
  if (restarts_so_far >= p.max_restarts) {
    d.action = RestartDecision::Action::exhausted;
    d.attempt = restarts_so_far + 1;
    return d;
  }
  d.action = RestartDecision::Action::relaunch;
  d.attempt = restarts_so_far + 1;
  d.delay_seconds = p.backoff(d.attempt);
  return d;
}

std::string relaunch_step_name(const std::string& step_name, int attempt) {
  return step_name + "_r" + std::to_string(attempt);
}

std::string rotated_log_name(const std::string& log_file, int attempt) { return log_file + "." + std::to_string(attempt); }

Json worker_restarts_record(const std::vector<RestartEndpoint>& endpoints, const std::vector<RestartEvent>& events) {
  int total = 0;
  Json shown = Json::object();
  for (const auto& e : endpoints) {
    total += e.restarts;
    if (!e.restarts && !e.settled) continue;
    shown[e.label] = {{"policy", to_string(e.policy.when)},
                      {"restarts", e.restarts},
                      {"max_restarts", e.policy.max_restarts},
                      {"exhausted", e.settled && e.restarts >= e.policy.max_restarts}};
  }
  Json list = Json::array();
  const auto text_or_null = [](const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); };
  for (const auto& e : events)
    list.push_back({{"worker", e.worker},
                    {"mode", e.mode},
                    {"index", e.index},
                    {"node", text_or_null(e.node)},
                    {"attempt", e.attempt},
                    {"exit_code", e.exit_code},
                    {"exited_at", e.exited_at},
                    {"outcome", e.outcome},
                    {"backoff_seconds", e.backoff_seconds},
                    {"relaunched_at", text_or_null(e.relaunched_at)},
                    {"ready_at", text_or_null(e.ready_at)},
                    {"ready_seconds", e.ready_seconds ? Json(*e.ready_seconds) : Json(nullptr)},
                    {"crash_log", text_or_null(e.crash_log)},
                    {"rerun", text_or_null(e.rerun)},
                    {"engine", 0}});
  return {{"total_restarts", total}, {"endpoints", shown}, {"events", list}};
}

}  // namespace srt

// srtctl's worker restart policy (srt/restart_policy.hpp): which exits relaunch, the doubling
// capped backoff, when the restarts are spent, and the record in srtctl v2.18's layout
// (docs/topology.md "restart", src/srtctl/core/supervisor.py).
#include <catch2/catch.hpp>

#include "srt/restart_policy.hpp"

namespace {

srt::RestartPolicy parsed(const srt::Json& v) {
  std::vector<srt::RestartPolicyProblem> problems;
  const auto p = srt::parse_restart_policy(v, problems);
  INFO(v.dump() << ": " << (problems.empty() ? "" : problems.front().message));
  REQUIRE(p);
  return *p;
}

std::vector<srt::RestartPolicyProblem> problems_of(const srt::Json& v) {
  std::vector<srt::RestartPolicyProblem> problems;
  CHECK_FALSE(srt::parse_restart_policy(v, problems));
  return problems;
}

}  // namespace

TEST_CASE("restart policy: the name or the mapping, with srtctl's defaults", "[restart]") {
  const auto never = parsed(nullptr);
  CHECK_FALSE(never.enabled());
  CHECK(never.max_restarts == 3);
  CHECK(never.backoff_seconds == 10);
  CHECK(never.max_backoff_seconds == 300);

  CHECK(parsed("on-failure").when == srt::RestartWhen::on_failure);
  CHECK(parsed("always").when == srt::RestartWhen::always);
  const auto m = parsed({{"policy", "always"}, {"max_restarts", 5}, {"backoff_seconds", 0.5}, {"max_backoff_seconds", 120}});
  CHECK(m.when == srt::RestartWhen::always);
  CHECK(m.max_restarts == 5);
  CHECK(m.backoff_seconds == 0.5);
  CHECK(m.max_backoff_seconds == 120);
  // A mapping without policy is srtctl's default policy: it relaunches nothing.
  CHECK_FALSE(parsed({{"max_restarts", 1}}).enabled());
}

TEST_CASE("restart policy: what is wrong is named by its key", "[restart]") {
  CHECK(problems_of("on_failure").front().key.empty());
  CHECK(problems_of(true).front().message.find("or a mapping") != std::string::npos);
  const auto ps = problems_of({{"policy", "sometimes"}, {"max_restarts", 1.5}, {"backoff_seconds", -1},
                               {"max_backoff_seconds", "300"}, {"retries", 2}});
  REQUIRE(ps.size() == 5);
  CHECK(ps[0].key == "policy");
  CHECK(ps[1].key == "max_restarts");
  CHECK(ps[2].key == "backoff_seconds");
  CHECK(ps[3].key == "max_backoff_seconds");
  CHECK(ps[4].key == "retries");
  CHECK(ps[4].message == "unknown key 'retries'");
  CHECK(problems_of({{"max_restarts", true}}).front().key == "max_restarts");
}

TEST_CASE("restart policy: on-failure takes non-zero exits only, always takes every exit", "[restart]") {
  const auto on_failure = parsed("on-failure");
  CHECK(on_failure.restarts_on(1));
  CHECK(on_failure.restarts_on(137));
  CHECK_FALSE(on_failure.restarts_on(0));
  CHECK(parsed("always").restarts_on(0));
  CHECK_FALSE(parsed("never").restarts_on(1));
}

TEST_CASE("restart policy: the backoff doubles per relaunch of an endpoint, capped", "[restart]") {
  const auto p = parsed({{"policy", "on-failure"}, {"backoff_seconds", 10}, {"max_backoff_seconds", 35}});
  CHECK(p.backoff(1) == 10);
  CHECK(p.backoff(2) == 20);
  CHECK(p.backoff(3) == 35);
  CHECK(p.backoff(1000) == 35);
  // A cap below the first delay caps it too.
  CHECK(parsed({{"backoff_seconds", 10}, {"max_backoff_seconds", 3}}).backoff(1) == 3);
}

TEST_CASE("restart policy: relaunch until max_restarts are spent, then exhausted - other exits are released", "[restart]") {
  using Action = srt::RestartDecision::Action;
  const auto p = parsed({{"policy", "on-failure"}, {"max_restarts", 2}, {"backoff_seconds", 1}});
  auto d = srt::decide_restart(p, 9, 0);
  CHECK(d.action == Action::relaunch);
  CHECK(d.attempt == 1);
  CHECK(d.delay_seconds == 1);
  d = srt::decide_restart(p, 9, 1);
  CHECK(d.action == Action::relaunch);
  CHECK(d.attempt == 2);
  CHECK(d.delay_seconds == 2);
  d = srt::decide_restart(p, 9, 2);
  CHECK(d.action == Action::exhausted);
  CHECK(d.attempt == 3);
  CHECK(srt::decide_restart(p, 0, 0).action == Action::release);
  CHECK(srt::decide_restart(parsed("never"), 9, 0).action == Action::release);
  CHECK(srt::decide_restart(parsed({{"policy", "always"}, {"max_restarts", 0}}), 0, 0).action == Action::exhausted);
}

TEST_CASE("restart policy: relaunched steps and rotated logs are named per attempt", "[restart]") {
  CHECK(srt::relaunch_step_name("decode_0", 2) == "decode_0_r2");
  CHECK(srt::rotated_log_name("/logs/node1_decode_w0.out", 1) == "/logs/node1_decode_w0.out.1");
}

TEST_CASE("restart policy: worker_restarts.json in srtctl's layout", "[restart]") {
  srt::RestartEndpoint decode{"decode_0", parsed({{"policy", "on-failure"}, {"max_restarts", 1}}), 1, true};
  srt::RestartEndpoint prefill{"prefill_0", parsed("on-failure"), 0, false};
  srt::RestartEvent first;
  first.worker = "decode_0";
  first.mode = "decode";
  first.node = "node2";
  first.attempt = 1;
  first.exit_code = 137;
  first.exited_at = "2026-12-05T10:00:00Z";
  first.outcome = "ready";
  first.backoff_seconds = 10;
  first.relaunched_at = "2026-12-05T10:00:10Z";
  first.ready_at = "2026-12-05T10:01:00Z";
  first.ready_seconds = 50.0;
  first.crash_log = "/logs/node2_decode_w0.out.1";
  first.rerun = "c64";
  srt::RestartEvent second = first;
  second.worker = "decode_0_r1";
  second.attempt = 2;
  second.outcome = "exhausted";
  second.relaunched_at = second.ready_at = second.crash_log = second.rerun = "";
  second.ready_seconds.reset();

  const srt::Json j = srt::worker_restarts_record({decode, prefill}, {first, second});
  CHECK(j["total_restarts"] == 1);
  // Only endpoints that restarted or were let go are listed.
  REQUIRE(j["endpoints"].size() == 1);
  CHECK(j["endpoints"]["decode_0"] ==
        srt::Json({{"policy", "on-failure"}, {"restarts", 1}, {"max_restarts", 1}, {"exhausted", true}}));
  REQUIRE(j["events"].size() == 2);
  CHECK(j["events"][0]["outcome"] == "ready");
  CHECK(j["events"][0]["ready_seconds"] == 50.0);
  CHECK(j["events"][0]["crash_log"] == "/logs/node2_decode_w0.out.1");
  CHECK(j["events"][0]["rerun"] == "c64");
  CHECK(j["events"][1]["outcome"] == "exhausted");
  CHECK(j["events"][1]["rerun"].is_null());
  CHECK(j["events"][1]["relaunched_at"].is_null());
  CHECK(j["events"][1]["ready_seconds"].is_null());
  CHECK(j["events"][1]["engine"] == 0);
}

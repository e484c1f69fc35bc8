// srtctl v2.18's worker restart policy (`roles.<role>.restart`: its recipe schema's RestartPolicy,
// and docs/topology.md "restart" at NVIDIA/srt-slurm v2.18): which exits a role's workers come
// back from, how often, and after what delay; what each relaunch is called and where the log of
// the life before it goes; and the record of them all (logs/worker_restarts.json). Pure: the
// launcher's supervisor decides with these and does the waiting, the steps and the files.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt {

enum class RestartWhen { never, on_failure, always };
const char* to_string(RestartWhen w);  // never | on-failure | always

struct RestartPolicy {
  RestartWhen when = RestartWhen::never;
  int max_restarts = 3;              // relaunches per endpoint over the whole job
  double backoff_seconds = 10;       // before the first relaunch; doubles on each further one
  double max_backoff_seconds = 300;  // cap on the doubled delay

  bool enabled() const { return when != RestartWhen::never; }
  // Whether an exit with this code is the policy's to relaunch (on-failure: non-zero only).
  bool restarts_on(int exit_code) const;
  // The delay before relaunch `attempt` (1 for the first) of one endpoint.
  double backoff(int attempt) const;
};

// One thing wrong with a written policy: `key` under it ("" for the value itself, or "policy",
// "max_restarts", ...), what is wrong, and what to write instead.
struct RestartPolicyProblem {
  std::string key, message, hint;
};

// `restart:` as written: a policy name, or a mapping of policy, max_restarts, backoff_seconds and
// max_backoff_seconds (each optional). null is the default policy (never). Problems are appended;
// the policy is returned only when there are none.
std::optional<RestartPolicy> parse_restart_policy(const Json& v, std::vector<RestartPolicyProblem>& problems);

// What the supervisor does when a supervised endpoint's worker ends with `exit_code`, having been
// relaunched `restarts_so_far` times already.
struct RestartDecision {
  enum class Action {
    release,    // not the policy's exit (never, or a clean exit under on-failure): the role's
                // `critical` decides, as without a policy
    exhausted,  // max_restarts spent: fails the job as an exit without a policy would
    relaunch,   // relaunch attempt `attempt` after `delay_seconds`
  };
  Action action = Action::release;
  int attempt = 0;
  double delay_seconds = 0;
};
RestartDecision decide_restart(const RestartPolicy& p, int exit_code, int restarts_so_far);

// The relaunched step's name: `<step>_r<attempt>`, so a lingering step of the first life is never
// signalled for the new one (srtctl's supervisor.py names them so too).
std::string relaunch_step_name(const std::string& step_name, int attempt);
// Where the log of the life that ended goes before relaunch `attempt` writes the log afresh:
// `<log>.<attempt>` beside it.
std::string rotated_log_name(const std::string& log_file, int attempt);

// One relaunch (or the exit that found the restarts spent), as srtctl records it.
struct RestartEvent {
  std::string worker;   // the step whose exit triggered it
  std::string mode;     // prefill | decode | agg
  int index = 0;        // the endpoint's index in its role
  std::string node;
  int attempt = 0;      // 1 for the first relaunch of this endpoint
  int exit_code = 0;
  std::string exited_at;  // UTC, ISO 8601 to the second ("2026-12-05T10:00:00Z")
  // scheduled -> relaunched -> ready | not_ready; or exhausted / launch_failed / stopped.
  std::string outcome = "scheduled";
  double backoff_seconds = 0;
  std::string relaunched_at, ready_at;  // "" = not (yet)
  std::optional<double> ready_seconds;
  std::string crash_log;                // the rotated log of the life that ended ("" = none)
  // srt-spank's own: what the relaunch made run again ("c64": the point that was running, its
  // partial result set aside; "the whole sweep"; "" = nothing was running).
  std::string rerun;
};

// The state of one supervised endpoint for the record.
struct RestartEndpoint {
  std::string label;  // <mode>_<index>
  RestartPolicy policy;
  int restarts = 0;
  bool settled = false;  // the supervisor has let it go (released or exhausted)
};

// logs/worker_restarts.json: total_restarts, the endpoints that restarted or were let go (policy,
// restarts, max_restarts, exhausted), and every event in order, in srtctl v2.18's layout.
Json worker_restarts_record(const std::vector<RestartEndpoint>& endpoints, const std::vector<RestartEvent>& events);

}  // namespace srt

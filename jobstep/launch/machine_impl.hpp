// The batch step's state machine (machine.cpp, machine_start.cpp, machine_benchmark.cpp): one
// class whose states are its member functions, split by stage so each file reads on its own.
//   plan -> gpus -> ports -> preflight -> workers -> healthy -> ranks -> router -> benchmark -> teardown
// Every state polls the same way (check()): a signal or a critical process ending leaves the
// normal path at once (Stop), and teardown runs on every path.
#pragma once
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "launch.hpp"
#include "power_collector.hpp"
#include "run_state.hpp"
#include "srt/engines.hpp"
#include "srt/poll.hpp"
#include "srt/post_eval.hpp"
#include "srt/readiness.hpp"
#include "srt/restart_policy.hpp"
#include "srt/validity.hpp"
#include "sweep.hpp"

namespace srt::launch {

inline constexpr double kPollSeconds = 0.05;    // signals and exits
inline constexpr std::chrono::milliseconds kPoll{static_cast<int>(kPollSeconds * 1000)};  // the same, for sys::poll_until
inline constexpr double kProbeSeconds = 0.1;    // readiness: noticed within a tenth of a second
inline constexpr double kProgressSeconds = 15;  // a progress line at least this often while waiting
inline constexpr int kTailLines = 30;
// The most characters of a failed job's one-line reason that the launcher composes from parts
// (each role's cause is cut to fit): what a person reads in squeue's comment or a CI summary.
inline constexpr std::size_t kReasonBudget = 280;
inline constexpr double kSignalRaceSeconds = 0.3;
inline constexpr double kPortCheckSeconds = 120;  // one srun on every node; slurmstepd start-up under load

// Thrown by a state to leave the normal path; run() records it as the job's outcome.
struct Stop {
  Outcome outcome;
};

// The Stop of a failed job: its reason, its failure class and the nodes it involves.
inline Stop failed(Cause cause, std::string reason, std::vector<std::string> nodes = {},
                   std::optional<Role> role = std::nullopt) {
  Outcome o{"failed", std::move(reason), 1, failure_class(cause, role), std::move(nodes)};
  return Stop{std::move(o)};
}

inline double unix_now() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  return double(tv.tv_sec) + double(tv.tv_usec) / 1e6;
}

// f(line) for each non-empty line of a program's output, in order.
template <typename F>
void each_line(const std::string& out, F&& f) {
  std::size_t from = 0;
  while (from < out.size()) {
    const std::size_t end = std::min(out.find('\n', from), out.size());
    if (end > from) f(out.substr(from, end - from));
    from = end + 1;
  }
}

inline void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

class Launch {
 public:
  explicit Launch(const Options& options) : options_(options), started_unix_(unix_now()) {}
  int run();

 private:
  // machine.cpp: the path through the states, and what every state uses.
  void enter(const std::string& state);
  void describe_plan();
  RunningStep& start(const Process& p);
  // srun `argv` with its stdout and stderr appended to `log` in the job's log directory, opened
  // here (StepCommand); a log that cannot be opened safely is the job's failure, and no step.
  sys::Child spawn_logged(const std::vector<std::string>& argv, const EnvList& env,
                          const std::vector<std::string>& unset, const std::string& log);
  void check_signal();
  void throw_if_node_failure(double settle_seconds = 2);
  void check();
  void teardown();
  void remove_containers(double seconds);
  void sweep_shared_memory(double seconds);
  std::string address(const Process& p) const { return job_.plan.nodes.at(std::size_t(p.node_index)).address; }

  // machine_host_setup.cpp: the job's host_setup on each node's host, before anything else, and
  // its teardown after the steps stopped.
  void host_setup();
  void host_teardown(double seconds);
  std::vector<std::string> run_on_hosts(const std::string& phase, const std::string& script, double seconds);
  bool host_setup_reached_ = false;

  // machine_telemetry.cpp: GPU power telemetry (the exporters, the collector, each point's
  // window, the manifest).
  // machine_services.cpp: the recipe's generic services that start at this point, and their probes.
  void start_services(bool before_workers);
  // `log`: the wait's matcher of a log probe (nullptr for the other kinds).
  bool service_ready(const Process& p, LogMatcher* log, std::string& why) const;
  void start_telemetry();
  void window_begin(int concurrency);
  void window_end(int concurrency, const std::string& state, const std::string& reason);
  void finish_telemetry();
  std::shared_ptr<const helper::SafeDir> power_dir_, windows_dir_;
  std::unique_ptr<PowerCollector> power_;
  std::vector<PowerWindow> windows_;
  double power_started_unix_ = 0, window_mono_ = 0;
  bool power_startup_failed_ = false;

  // machine_start.cpp: everything before the benchmark.
  void check_gpus();
  void check_nodes_and_ports();
  std::string port_check_failure(const std::string& out, int status);
  std::string node_step_failure(const std::string& state, const std::string& what, const std::string& file,
                                const std::string& out, int status, const std::vector<std::string>& silent);
  void preflight();
  void start_workers();
  bool probe_ready(const Process& p, std::string& why) const;
  void wait_healthy();
  void canary_ranks();
  std::string model_of(const std::string& host, int port);
  void start_router();
  std::string router_workers_changed();
  std::pair<int, int> router_counts_{-1, -1};  // prefill, decode the /workers gate opened at
  std::set<std::string> router_urls_;           // the workers' URLs the router was given (the gate's list)
  void wait_router_warm(const Process& router);

  // machine_supervise.cpp: workers that come back (srt/restart_policy.hpp, the role's restart).
  bool supervise(const RunningStep& ended, const std::string& what);
  void relaunch_pending();
  struct PendingRelaunch {
    std::size_t event;  // in restart_events_
    Role role;
    double ended;       // console seconds: when check() saw the step end
  };
  void relaunch(const PendingRelaunch& pending);
  bool wait_endpoint_healthy(Role role, int index, int attempt, std::string& why);
  int restarts_of(const std::string& label) const;
  void write_restarts();

  // machine_benchmark.cpp: the benchmark, one step for the sweep or one per point, and its results.
  std::string run_benchmark();  // how it finished, for the outcome
  enum class StepEnd { ended, stalled, interrupted };  // interrupted: a worker was relaunched meanwhile
  StepEnd await_step(std::size_t index);
  StepEnd run_until_uninterrupted(const Process& p, const std::string& rerun, std::size_t& index,
                                  const std::function<void(int)>& before);
  std::string set_aside_point(int concurrency, int attempt);
  void run_whole_sweep(const Process& bench);
  void run_points();
  std::filesystem::path results_path() const;
  void check_results();

  // machine_audit.cpp: whose requests each point measured (srt/point_audit.hpp).
  void audit_start();
  void audit_begin(const SweepPoint& pt);
  std::string audit_end(SweepPoint& pt, const PointResult& r);  // "" or why the point is contaminated
  std::optional<double> audit_count() const;
  std::optional<AuditSource> audit_;
  std::optional<double> audit_before_;
  std::uintmax_t audit_log_from_ = 0;

  // machine_eval.cpp: post_eval (srt/post_eval.hpp), after the benchmark or instead of it.
  std::string run_eval(const Process& bench, const EvalDecision& decision);  // how it ended

  Options options_;
  Job job_;
  bool loaded_ = false;
  Console console_;
  std::vector<RunningStep> steps_;
  std::vector<SweepPoint> points_;  // sized once (steps_ point at their processes)
  int stall_ = 0;                    // the stall timeout in force
  std::string stall_seen_;           // what the stall watch saw last, for the reason
  Outcome outcome_;
  Timings timings_;
  std::string state_;
  double started_unix_;
  std::optional<long long> warned_at_;  // when Slurm's time-limit warning (USR1) came, unix seconds
  // The step whose end is the point of the state (a benchmark step, await_step()): check() does
  // not treat its end as a failure, however deep it is called (a relaunch polls too). An index:
  // steps_ grows while it runs.
  std::optional<std::size_t> awaited_;
  // The supervisor's (machine_supervise.cpp): the relaunched steps' processes (steps_ point at
  // them; a deque never moves them), each supervised endpoint, every restart event, the events
  // check() scheduled and not yet relaunched, and the relaunches begun (a benchmark step that
  // saw this change was interrupted).
  std::deque<Process> relaunched_;
  std::optional<Process> eval_;  // the post_eval step's process (steps_ points at it; set once)
  std::vector<RestartEndpoint> restart_endpoints_;
  std::vector<RestartEvent> restart_events_;
  std::vector<PendingRelaunch> pending_relaunches_;
  int relaunches_begun_ = 0;
};

}  // namespace srt::launch

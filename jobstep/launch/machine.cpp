// The batch step's path through its states, top to bottom (run()), and what every state uses:
// entering a state, starting a step, polling for signals and critical exits, and the teardown
// every path ends in.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "machine.hpp"
#include "machine_impl.hpp"
#include "node_failure.hpp"
#include "signals.hpp"
#include "srt/error.hpp"

namespace srt::launch {

int Launch::run() {
  install_signal_handlers();
  try {
    enter("plan");
    job_ = load_job(options_);
    loaded_ = true;
    console_.open_log(job_.log_dir + "/sweep_" + std::to_string(job_.plan.job_id) + ".log");
    describe_plan();
    host_setup();
    check_gpus();
    check_nodes_and_ports();
    preflight();
    start_services(true);
    start_workers();
    wait_healthy();
    canary_ranks();
    start_router();
    start_services(false);
    start_telemetry();
    outcome_ = {"completed", run_benchmark(), 0, "", {}};
  } catch (const Stop& stop) {
    outcome_ = stop.outcome;
  } catch (const Error& e) {
    // Before the plan the job's inputs are wrong; later a step's command could not be started.
    outcome_ = {"failed", e.what(), 1, failure_class(loaded_ ? Cause::internal : Cause::recipe), {}};
    console_.line(std::string("error: ") + e.what());
  } catch (const std::exception& e) {
    // Anything else (a library's exception on input it did not expect) is still a failed job
    // in the state it reached: the steps are stopped, status.json and the logs written.
    outcome_ = {"failed", "internal error during " + state_ + ": " + e.what(), 1, failure_class(Cause::internal), {}};
    console_.line("error: " + outcome_.reason);
  }
  teardown();
  return outcome_.exit_code;
}

void Launch::enter(const std::string& state) {
  state_ = state;
  timings_.emplace_back(state, console_.seconds());
  if (loaded_) write_status(job_, steps_, outcome_, timings_, started_unix_, points_);
}

void Launch::describe_plan() {
  const Plan& plan = job_.plan;
  console_.line("job " + std::to_string(plan.job_id) + ": " + job_.recipe.name + ", plan " + plan.digest.substr(0, 12) +
                " (matches the plugin's), " + std::to_string(plan.processes.size()) + " processes on " +
                std::to_string(plan.demand_nodes) + " nodes");
  for (const auto& p : plan.processes) console_.line("  " + p.step_name + " on " + p.node + " -> " + p.log_file);
  console_.line("logs in " + job_.log_dir + "; health budget " + std::to_string(job_.health_budget_seconds) + " s");
}

RunningStep& Launch::start(const Process& p) {
  const StepCommand cmd = step_command(job_, p);
  RunningStep s;
  s.process = &p;
  s.started = console_.seconds();
  s.srun = spawn_logged(cmd.argv(), cmd.env, cmd.unset_env, cmd.log_file);
  steps_.push_back(std::move(s));
  return steps_.back();
}

sys::Child Launch::spawn_logged(const std::vector<std::string>& argv, const EnvList& env,
                                const std::vector<std::string>& unset, const std::string& log) {
  if (!job_.logs) throw failed(Cause::internal, "no log directory for " + log);
  UniqueFd out;
  try {
    out = job_.logs->append_file(log);
  } catch (const Error& e) {
    // Only code of this job writes there: a container did it (the directory is the launcher's
    // own). The finding without SafeDir's remedy, which is for a planted results root.
    const std::string what = e.diagnostics().empty() ? e.what() : e.diagnostics().front().message;
    throw failed(Cause::image, what + ": a container of this job put it there; its step was not started");
  }
  return sys::Child::spawn(argv, env, unset, out.get());
}

// Signals and critical exits, every poll. The awaited step's end (awaited_: the benchmark) is the
// point of its state, not a failure: await_step() reads it from the step. A worker whose role's
// restart policy takes its exit is relaunched, and healthy again, before check() returns
// (machine_supervise.cpp).
void Launch::check_signal() {
  if (const int sig = pending_signal()) {
    if (sig == SIGUSR1) {
      warned_at_ = static_cast<long long>(unix_now());
      throw Stop{{"timeout", "time limit: Slurm sent SIGUSR1 (--signal=B:USR1) during " + state_, 1,
                  failure_class(Cause::time_limit), {}}};
    }
    throw_if_node_failure();  // slurmctld's TERM for a NODE_FAIL job is not a user's scancel
    throw Stop{{"cancelled", std::string("cancelled: ") + ::strsignal(sig) + " during " + state_, 1,
                failure_class(Cause::cancelled), {}}};
  }
}

void Launch::throw_if_node_failure(double settle_seconds) {
  std::vector<std::string> nodes;
  for (const auto& n : job_.plan.nodes) nodes.push_back(n.name);
  std::string asked;
  std::vector<std::string> failed_nodes;
  if (const auto why = node_failure(job_.plan.job_id, nodes, steps_, &asked, &failed_nodes, settle_seconds)) {
    console_.line(*why + " during " + state_);
    throw failed(Cause::node_failure, *why + " during " + state_, failed_nodes);
  }
  console_.line("Slurm: " + asked + " (not a node failure)");
}

void Launch::check() {
  check_signal();
  for (auto& s : steps_) {
    if (s.ended >= 0 || !s.srun.finished()) continue;
    s.ended = console_.seconds();
    if (awaited_ && &s == &steps_[*awaited_]) continue;
    // scancel signals every step and the batch step at once; a step may be seen ending before
    // our own TERM arrives. Give it a moment so a cancelled job is reported as cancelled.
    if (s.srun.exit_code() != 0) {
      sleep_s(kSignalRaceSeconds);
      check_signal();
    }
    const std::string what = s.process->name + " on " + s.process->node + " ended (" + s.srun.describe() + ") during " + state_;
    console_.line(what);
    console_.tail(*job_.logs, s.process->log_file, kTailLines);
    if (s.process->role == Role::gpu_exporter && power_) power_->exporter_exited();
    if (supervise(s, what)) continue;  // relaunched below, once this loop is done (start() grows steps_)
    if (s.process->critical) {
      // Whatever its exit code: srun of a step on a node Slurm declared failed exits 0
      // ("srun: error: Node failure on node2"), seen on the lab with Slurm 22.05.
      throw_if_node_failure();
      throw failed(Cause::step_ended, what, {s.process->node}, s.process->role);
    }
  }
  relaunch_pending();
}

void Launch::teardown() {
  if (!loaded_) {
    console_.line("job not started: " + outcome_.reason);
    return;
  }
  enter("teardown");
  close_points(points_, outcome_.reason);
  try {
    finish_telemetry();
  } catch (const std::exception& e) {  // the measurement's files, never the job's teardown
    console_.line(std::string("telemetry: the manifest could not be written: ") + e.what());
  }
  // Slurm kills what is left at the job's end (after KillWait): the archives come last and must
  // be written before it, so the parts before them get what leaves the archives their time.
  const char* end_env = std::getenv("SLURM_JOB_END_TIME");
  const TeardownDeadline deadline{job_end_time(end_env ? end_env : "", warned_at_)};
  const auto now = [] { return static_cast<long long>(unix_now()); };
  const int grace = deadline.grace(now(), options_.grace_seconds);
  // Said only when the end is near enough to shorten a part (teardown takes about 3 min at most).
  if (deadline.end && *deadline.end - now() < 300)
    console_.line("teardown: the job ends in " + std::to_string(*deadline.end - now()) + " s (" +
                  (warned_at_ ? "Slurm's time-limit warning" : "SLURM_JOB_END_TIME") + "); logs archived before then" +
                  (grace < options_.grace_seconds ? ", grace " + std::to_string(grace) + " s instead of " +
                                                        std::to_string(options_.grace_seconds) + " s"
                                                  : ""));
  stop_steps(steps_, job_.plan.job_id, grace, console_);
  if (host_setup_reached_ && job_.plan.host_setup)
    host_teardown(deadline.before_archives(now(), job_.plan.host_setup->timeout_seconds));
  remove_containers(deadline.before_archives(now(), kPortCheckSeconds));
  sweep_shared_memory(deadline.before_archives(now(), kPortCheckSeconds));
  write_status(job_, steps_, outcome_, timings_, started_unix_, points_);
  archive_logs(job_, console_, deadline);
  timings_.emplace_back("end", console_.seconds());
  write_status(job_, steps_, outcome_, timings_, started_unix_, points_);
  console_.line("job " + std::to_string(job_.plan.job_id) + " " + outcome_.state + ": " + outcome_.reason +
                " (status in " + job_.job_dir + "/status.json)");
}

// podman/docker: after the steps, their containers, on every node of the job. A step Slurm
// killed (KILL after TERM did not end it) leaves its container running; so does any step when
// the launcher itself is killed, which the epilog then catches. What is left is a FAIL line in
// the job's output; the job's outcome stays what it was.
void Launch::remove_containers(double seconds) {
  const StepCommand cmd = clean_containers_command(job_);
  if (cmd.srun.empty()) return;
  int status = 0;
  const std::string out = sys::run_capture(cmd.argv(), seconds, &status, true);
  each_line(out, [this](const std::string& line) { console_.line(line); });
  if (status != 0)
    console_.line("containers: FAIL: a container of the job may be left on a node (srt-helper clean-containers "
                  "exit " + std::to_string(status) + "); the epilog removes it when the job ends");
}

// What the job's engines left in /dev/shm on their nodes (shm_sweep.cpp), once they are stopped:
// each file removed is a console line; a sweep that fails is said and changes no outcome.
void Launch::sweep_shared_memory(double seconds) {
  const StepCommand cmd = shm_sweep_command(job_);
  if (cmd.srun.empty()) return;
  int status = 0;
  const std::string out = sys::run_capture(cmd.argv(), seconds, &status, true);
  std::size_t removed = 0;
  each_line(out, [&](const std::string& line) {
    const bool path = line.rfind('/', 0) == 0;  // find -print's; anything else is find's own word
    removed += path ? 1 : 0;
    console_.line("teardown: " + (path ? "removed " + line : line));
  });
  if (status != 0)
    console_.line("teardown: the shared-memory sweep ended with exit " + std::to_string(status) +
                  "; what the engines left in /dev/shm may still be there");
  else if (removed)
    console_.line("teardown: removed " + std::to_string(removed) + " shared-memory file(s) the engines left");
}

int run_launch(const Options& options) {
  if (options.dry_run) {
    const Job job = load_job(options);
    Json out = Json::array();
    for (const auto& p : job.plan.processes) out.push_back(step_command_json(step_command(job, p), p));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  Launch launch(options);
  return launch.run();
}

}  // namespace srt::launch

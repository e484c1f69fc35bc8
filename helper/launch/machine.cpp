// The batch step as a state machine a reader can follow top to bottom:
//   plan -> preflight -> workers -> healthy -> router -> benchmark -> teardown
// Every state polls the same way (check()): a signal or a critical process ending leaves the
// normal path at once (Stop), and teardown runs on every path.
#include <sys/time.h>

#include <algorithm>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <signal.h>
#include <thread>

#include "machine.hpp"
#include "node_failure.hpp"
#include "port_check.hpp"
#include "preflight.hpp"
#include "probe.hpp"
#include "../results.hpp"
#include "run_state.hpp"
#include "signals.hpp"
#include "stall.hpp"
#include "srt/error.hpp"

namespace srt::launch {
namespace {

constexpr double kPollSeconds = 0.05;    // signals and exits
constexpr double kProbeSeconds = 0.1;    // readiness: noticed within a tenth of a second
constexpr double kProgressSeconds = 15;  // a progress line at least this often while waiting
constexpr int kTailLines = 30;
constexpr double kSignalRaceSeconds = 0.3;
constexpr double kPortCheckSeconds = 120;  // one srun on every node; slurmstepd start-up under load

struct Stop {
  Outcome outcome;
};

double unix_now() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  return double(tv.tv_sec) + double(tv.tv_usec) / 1e6;
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }


class Launch {
 public:
  explicit Launch(const Options& options) : options_(options), started_unix_(unix_now()) {}

  int run() {
    install_signal_handlers();
    try {
      enter("plan");
      job_ = load_job(options_);
      loaded_ = true;
      console_.open_log(job_.log_dir + "/sweep_" + std::to_string(job_.plan.job_id) + ".log");
      describe_plan();
      check_nodes_and_ports();
      preflight();
      start_workers();
      wait_healthy();
      start_router();
      run_benchmark();
      outcome_ = {"completed", "benchmark finished", 0};
    } catch (const Stop& stop) {
      outcome_ = stop.outcome;
    } catch (const Error& e) {
      outcome_ = {"failed", e.what(), 1};
      console_.line(std::string("error: ") + e.what());
    } catch (const std::exception& e) {
      // Anything else (a library's exception on input it did not expect) is still a failed job
      // in the state it reached: the steps are stopped, status.json and the logs written.
      outcome_ = {"failed", "internal error during " + state_ + ": " + e.what(), 1};
      console_.line("error: " + outcome_.reason);
    }
    teardown();
    return outcome_.exit_code;
  }

 private:
  void enter(const std::string& state) {
    state_ = state;
    timings_.emplace_back(state, console_.seconds());
    if (loaded_) write_status(job_, steps_, outcome_, timings_, started_unix_);
  }

  void describe_plan() {
    const Plan& plan = job_.plan;
    console_.line("job " + std::to_string(plan.job_id) + ": " + job_.recipe.name + ", plan " + plan.digest.substr(0, 12) +
                  " (matches the plugin's), " + std::to_string(plan.processes.size()) + " processes on " +
                  std::to_string(plan.demand_nodes) + " nodes");
    for (const auto& p : plan.processes) console_.line("  " + p.step_name + " on " + p.node + " -> " + p.log_file);
    console_.line("logs in " + job_.log_dir + "; health budget " + std::to_string(job_.health_budget_seconds) + " s");
  }

  RunningStep& start(const Process& p) {
    const StepCommand cmd = step_command(job_, p);
    RunningStep s;
    s.process = &p;
    s.started = console_.seconds();
    s.srun = Child::spawn(cmd.argv(), cmd.env, cmd.unset_env);
    steps_.push_back(std::move(s));
    return steps_.back();
  }

  // Signals and critical exits, every poll. `awaited` is a step whose end is the point of the
  // state (the benchmark): its end is returned, not treated as a failure.
  void check_signal() {
    if (const int sig = pending_signal()) {
      if (sig == SIGUSR1)
        throw Stop{{"timeout", "time limit: Slurm sent SIGUSR1 (--signal=B:USR1) during " + state_, 1}};
      throw_if_node_failure();  // slurmctld's TERM for a NODE_FAIL job is not a user's scancel
      throw Stop{{"cancelled", std::string("cancelled: ") + ::strsignal(sig) + " during " + state_, 1}};
    }
  }

  void throw_if_node_failure() {
    std::vector<std::string> nodes;
    for (const auto& n : job_.plan.nodes) nodes.push_back(n.name);
    std::string asked;
    if (const auto why = node_failure(job_.plan.job_id, nodes, steps_, &asked)) {
      console_.line(*why + " during " + state_);
      throw Stop{{"failed", *why + " during " + state_, 1}};
    }
    console_.line("Slurm: " + asked + " (not a node failure)");
  }

  bool check(const RunningStep* awaited = nullptr) {
    check_signal();
    bool awaited_ended = false;
    for (auto& s : steps_) {
      if (s.ended >= 0 || !s.srun.finished()) continue;
      s.ended = console_.seconds();
      if (&s == awaited) {
        awaited_ended = true;
        continue;
      }
      // scancel signals every step and the batch step at once; a step may be seen ending before
      // our own TERM arrives. Give it a moment so a cancelled job is reported as cancelled.
      if (s.srun.exit_code() != 0) {
        sleep_s(kSignalRaceSeconds);
        check_signal();
      }
      const std::string what = s.process->name + " on " + s.process->node + " ended (" + s.srun.describe() + ") during " + state_;
      console_.line(what);
      console_.tail(job_.log_dir + "/" + s.process->log_file, kTailLines);
      if (s.process->critical) {
        // Whatever its exit code: srun of a step on a node Slurm declared failed exits 0
        // ("srun: error: Node failure on node2"), seen on the lab with Slurm 22.05.
        throw_if_node_failure();
        throw Stop{{"failed", what, 1}};
      }
    }
    return awaited_ended;
  }

  // Nothing of the job's runs yet: its nodes must be its own (exclusive profiles) and every port
  // the Plan gives a node free there, or the job stops now naming node and port, rather than a
  // worker dying of EADDRINUSE or a probe finding another job's worker (issue 23, finding 5).
  void check_nodes_and_ports() {
    enter("ports");
    std::string note;
    if (const auto problem = exclusivity_problem(job_, note)) throw Stop{{"failed", *problem + " (no worker was started)", 1}};
    if (!note.empty()) console_.line("ports: " + note);
    const StepCommand cmd = port_check_command(job_);
    int status = 0;
    const std::string out = run_capture(cmd.argv(), kPortCheckSeconds, &status, true);
    check_signal();
    // Every held port goes to the console; the reason names the first one per node and counts
    // the rest (another job's workers hold dozens).
    std::vector<std::pair<std::string, int>> first_per_node;  // "node X: port P (...) ...", count
    std::size_t from = 0;
    while (from < out.size()) {
      const std::size_t end = std::min(out.find('\n', from), out.size());
      const std::string line = out.substr(from, end - from);
      from = end + 1;
      const std::size_t at = line.find("node ");
      if (line.find("cannot be bound") == std::string::npos || at == std::string::npos) continue;
      console_.line(line);
      const std::string what = line.substr(at), node = what.substr(0, what.find(':'));
      auto same = std::find_if(first_per_node.begin(), first_per_node.end(),
                               [&](const auto& f) { return f.first.rfind(node + ":", 0) == 0; });
      if (same == first_per_node.end()) first_per_node.emplace_back(what, 1);
      else ++same->second;
    }
    std::string busy;
    for (const auto& [line, count] : first_per_node)
      busy += (busy.empty() ? "" : "; ") + line +
              (count > 1 ? " (and " + std::to_string(count - 1) + " more planned port(s) on that node)" : "");
    if (status == 0) {
      console_.line("ports: every planned port is free on all " + std::to_string(job_.plan.nodes.size()) + " nodes");
      return;
    }
    if (busy.empty()) busy = port_check_failure(out, status);
    throw Stop{{"failed", "ports: " + busy + " (no worker was started)", 1}};
  }

  // The step itself failed (a node that cannot run the job's steps: the plugin's task_init
  // refusing, slurmstepd errors) or timed out. Its output is kept as <node>_port_check.out for
  // each node that did not report, and the reason names the node, the first "srt:" line (what
  // the plugin said: node, library path) and that file, as a failed preflight probe's does.
  std::string port_check_failure(const std::string& out, int status) {
    std::vector<std::string> silent;
    for (const auto& n : job_.plan.nodes)
      if (out.find("port-check: node " + n.name + ": ") == std::string::npos) silent.push_back(n.name);
    std::string said;
    for (std::size_t at = out.find("srt: "); at != std::string::npos && said.empty(); at = out.find("srt: ", at + 1))
      said = out.substr(at, out.find('\n', at) - at);
    std::string why = "the port check step " + std::string(status == -1 ? "did not finish in " +
                      std::to_string(int(kPortCheckSeconds)) + " s" : "failed (exit code " + std::to_string(status) + ")");
    std::string nodes, logs;
    for (const auto& n : silent) {
      nodes += (nodes.empty() ? "" : ", ") + n;
      const std::string name = n + "_port_check.out";
      if (job_.logs) {
        try {
          job_.logs->write_file(name, out);
          logs += (logs.empty() ? "" : ", ") + job_.log_dir + "/" + name;
        } catch (const Error& e) {
          console_.line("ports: " + std::string(e.what()));
        }
      }
    }
    if (!nodes.empty()) why += " on " + nodes;
    if (!said.empty()) why += ": " + said;
    if (!logs.empty()) why += "; its output is in " + logs;
    console_.line("ports: " + why);
    return why;
  }

  // The probe in each role's image, all roles at once, before any worker starts: a missing
  // piece or (profile identity_mismatch: stop) an image that is not the recipe's identity ends
  // the job here, in seconds rather than after a model load. Bounded by the health budget: a
  // first pull of an image under pyxis can take minutes, and the named container is reused.
  void preflight() {
    enter("preflight");
    std::vector<ProbeStep> probes = probe_steps(job_);
    std::vector<Child> running;
    for (const auto& s : probes) running.push_back(Child::spawn(s.command.argv(), s.command.env, s.command.unset_env));
    console_.line("preflight: probing " + std::to_string(probes.size()) + " role image(s)");
    const double deadline = console_.seconds() + job_.health_budget_seconds;
    auto all_done = [&] {
      bool done = true;
      for (auto& c : running) done = c.finished() && done;
      return done;
    };
    try {
      while (!all_done()) {
        check_signal();
        if (console_.seconds() >= deadline)
          throw Stop{{"failed", "preflight probes did not finish within " + std::to_string(job_.health_budget_seconds) +
                                    " s (health_check budget)", 1}};
        sleep_s(kPollSeconds);
      }
    } catch (const Stop&) {
      for (auto& c : running) if (!c.finished()) c.signal(SIGTERM);  // srun passes it to the step
      sleep_s(1);
      throw;  // ~Child kills and reaps what is left
    }
    const PreflightVerdict v = judge_probes(job_, probes);
    for (const auto& f : v.prints)
      console_.line("  " + f.role + " on " + f.node + ": " + f.engine_module + " " +
                    (f.engine_version.empty() ? "(no version)" : f.engine_version) +
                    (f.engine_commit.empty() ? "" : ", commit " + f.engine_commit) + "; mooncake " +
                    (f.mooncake_version.empty() ? "-" : f.mooncake_version) + "; router " +
                    (f.router_version.empty() ? "-" : f.router_version));
    for (const auto& line : v.kv_notes) console_.line("  " + line);
    console_.line("fingerprints in " + job_.job_dir + "/fingerprints.json");
    std::string why;
    for (const auto& line : v.missing) {
      console_.line("preflight: missing: " + line);
      why += (why.empty() ? "" : "; ") + line;
    }
    const bool stop_on_identity = job_.profile.identity_mismatch != "warn";
    for (const auto& m : v.mismatches) {
      console_.line(std::string("preflight: ") + (stop_on_identity ? "identity mismatch: " : "warning: identity mismatch: ") +
                    m.line());
      if (stop_on_identity) why += (why.empty() ? "" : "; ") + m.line();
    }
    if (!v.kv_problem.empty()) {
      console_.line("preflight: " + v.kv_problem);
      why += (why.empty() ? "" : "; ") + v.kv_problem;
    }
    if (!why.empty()) throw Stop{{"failed", "preflight: " + why + " (no worker was started)", 1}};
    console_.line("preflight: every role's image has what it needs" +
                  std::string(v.mismatches.empty() ? " and is the recipe's identity" : ""));
  }

  // Relay mode: each worker's kv-relay (a host step) is launched before the workers, so the ingress
  // its ranks connect to is there, or coming, when they publish their first events.
  void start_workers() {
    enter("workers");
    std::size_t relays = 0;
    for (const auto& p : job_.plan.processes)
      if (p.role == "kv-relay") {
        start(p);
        ++relays;
      }
    for (const auto& p : job_.plan.processes)
      if (p.is_worker()) start(p);
    console_.line("started " + std::to_string(steps_.size() - relays) + " worker steps" +
                  (relays ? " after " + std::to_string(relays) + " kv-relay steps" : ""));
  }

  void wait_healthy() {
    enter("healthy");
    std::vector<const Process*> workers;
    for (const auto& p : job_.plan.processes)
      if (p.is_worker() && p.readiness.kind == "http") workers.push_back(&p);
    std::set<const Process*> healthy;
    std::map<const Process*, std::string> why;
    const double deadline = console_.seconds() + job_.health_budget_seconds;
    double last_probe = -1, last_print = -1;
    std::size_t printed = std::size_t(-1);
    for (;;) {
      check();
      const double now = console_.seconds();
      if (now - last_probe >= kProbeSeconds) {
        last_probe = now;
        for (const Process* w : workers) {
          if (healthy.count(w)) continue;
          const ProbeResult r = http_get(address(*w), w->readiness.port, w->readiness.path);
          if (r.ok) healthy.insert(w);
          else why[w] = r.why;
        }
      }
      if (healthy.size() != printed || now - last_print >= kProgressSeconds) {
        console_.line("workers healthy " + std::to_string(healthy.size()) + "/" + std::to_string(workers.size()));
        printed = healthy.size();
        last_print = now;
      }
      if (healthy.size() == workers.size()) return;
      if (now >= deadline) {
        std::string missing;
        for (const Process* w : workers)
          if (!healthy.count(w))
            missing += (missing.empty() ? "" : "; ") + w->name + " on " + w->node + " (http://" + address(*w) + ":" +
                       std::to_string(w->readiness.port) + w->readiness.path + ": " + why[w] + ")";
        throw Stop{{"failed", "workers not healthy after " + std::to_string(job_.health_budget_seconds) +
                                  " s (health_check max_attempts x interval_seconds): " + missing, 1}};
      }
      sleep_s(kPollSeconds);
    }
  }

  void start_router() {
    const Process* router = job_.plan.find("router");
    if (!router) return;
    enter("router");
    start(*router);
    int prefill = 0, decode = 0;
    for (const auto& p : job_.plan.processes) {
      if (p.role == "prefill") ++prefill;
      if (p.role == "decode" || p.role == "agg") ++decode;
    }
    const double deadline = console_.seconds() + job_.health_budget_seconds;
    std::string why = "no answer yet";
    double last_probe = -1;
    for (;;) {
      check();
      const double now = console_.seconds();
      if (now - last_probe >= kProbeSeconds) {
        last_probe = now;
        if (workers_gate(http_get(address(*router), router->readiness.port, router->readiness.path), prefill, decode, why))
          break;
      }
      if (now >= deadline)
        throw Stop{{"failed", "the router's /workers did not list every worker within " +
                                  std::to_string(job_.health_budget_seconds) + " s: " + why, 1}};
      sleep_s(kPollSeconds);
    }
    console_.line("router ready: " + why);
  }

  void run_benchmark() {
    const Process* bench = job_.plan.find("benchmark");
    if (!bench) {
      enter("serving");
      console_.line("no benchmark step (benchmark.type " + job_.recipe.benchmark.type +
                    "): serving until the job is cancelled or reaches its time limit");
      for (;;) {
        check();
        sleep_s(kPollSeconds);
      }
    }
    enter("benchmark");
    RunningStep& step = start(*bench);
    const std::size_t index = steps_.size() - 1;
    (void)step;
    const int stall = options_.stall_timeout_seconds >= 0 ? options_.stall_timeout_seconds
                                                          : job_.profile.benchmark_stall_timeout;
    StallWatch watch(job_, stall, console_.seconds());
    if (stall > 0)
      console_.line("benchmark: cut after " + std::to_string(stall) +
                    " s without a completed request or a new result file (--stall-timeout; profile benchmark_stall_timeout)");
    while (!check(&steps_[index])) {
      if (watch.stalled(console_.seconds())) {
        const std::string why = "benchmark stalled: nothing completed for " + std::to_string(stall) + " s (" + watch.seen() +
                                "); the benchmark and every worker were stopped (--stall-timeout " + std::to_string(stall) + ")";
        console_.line(why);
        console_.tail(job_.log_dir + "/" + bench->log_file, kTailLines);
        throw Stop{{"failed", why, 1}};
      }
      sleep_s(kPollSeconds);
    }
    RunningStep& done = steps_[index];
    if (done.srun.exit_code() != 0) {
      const std::string what = "benchmark ended (" + done.srun.describe() + ")";
      console_.line(what);
      console_.tail(job_.log_dir + "/" + bench->log_file, kTailLines);
      throw Stop{{"failed", what, 1}};
    }
    check_results();
  }

  // The validity gate (srt/validity.hpp), the one `run` and `report` apply: every planned
  // concurrency point needs a result with completed requests and output tokens and at most 5 %
  // failed prompts, whatever the benchmark's exit status said.
  void check_results() {
    const std::filesystem::path dir = std::filesystem::path(job_.results_dir) / std::to_string(job_.plan.job_id);
    const std::vector<int>& planned = job_.recipe.benchmark.concurrencies;
    const SweepVerdict v = judge_results(dir, planned);
    if (planned.empty() && v.points.empty()) {
      console_.line("benchmark results: none under " + (dir / "fixed-seq").string() +
                    " and the recipe plans no concurrencies (benchmark.concurrencies): nothing to check");
      return;
    }
    for (const auto& p : v.points)
      console_.line("  c" + std::to_string(p.concurrency) + ": " +
                    (p.problem.empty() ? "ok, " + std::to_string(p.completed) + " completed" : p.problem));
    if (!v.valid) throw Stop{{"failed", "benchmark results invalid: " + v.problems(), 1}};
    console_.line("benchmark results: " + std::to_string(v.points.size()) + " point(s) under " + (dir / "fixed-seq").string() +
                  ", every one valid");
  }

  void teardown() {
    if (!loaded_) {
      console_.line("job not started: " + outcome_.reason);
      return;
    }
    enter("teardown");
    stop_steps(steps_, job_.plan.job_id, options_.grace_seconds, console_);
    write_status(job_, steps_, outcome_, timings_, started_unix_);
    archive_logs(job_, console_);
    timings_.emplace_back("end", console_.seconds());
    write_status(job_, steps_, outcome_, timings_, started_unix_);
    console_.line("job " + std::to_string(job_.plan.job_id) + " " + outcome_.state + ": " + outcome_.reason +
                  " (status in " + job_.job_dir + "/status.json)");
  }

  std::string address(const Process& p) const { return job_.plan.nodes.at(std::size_t(p.node_index)).address; }

  Options options_;
  Job job_;
  bool loaded_ = false;
  Console console_;
  std::vector<RunningStep> steps_;
  Outcome outcome_;
  Timings timings_;
  std::string state_;
  double started_unix_;
};

}  // namespace

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

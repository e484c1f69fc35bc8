// host_setup (srt/host_setup.hpp) as srtctl runs it (NVIDIA/srt-slurm src/srtctl/cli/do_sweep.py,
// _run_host_commands): one srun per node, no container, all nodes at once, each given the block's
// timeout_seconds; output in logs/host_setup_<node>.out (host_teardown_<node>.out). A node that
// fails or runs out of time ends the job before any worker, unless ignore_failure; the teardown
// runs after the steps stopped on every path once setup was reached, and never changes the
// job's outcome.
#include <signal.h>

#include <algorithm>

#include "machine_impl.hpp"
#include "srt/join.hpp"

namespace srt::launch {

namespace {

constexpr double kKillAfterTermSeconds = 5;  // srun forwards TERM to the step; KILL if it lingers

}  // namespace

// The nodes where `script` failed or ran out of time, each said on the console.
std::vector<std::string> Launch::run_on_hosts(const std::string& phase, const std::string& script, double seconds) {
  const HostSetupPlan& h = *job_.plan.host_setup;
  console_.line("host_setup (" + phase + "): running on " + std::to_string(h.nodes.size()) + " node(s) for at most " +
                std::to_string(int(seconds)) + " s: " + script);
  struct Host {
    std::string node, log;
    sys::Child srun;
    bool timed_out = false;
  };
  std::vector<Host> hosts;
  for (const std::string& node : h.nodes) {
    const std::string log = "host_" + phase + "_" + node + ".out";
    // On the host: no container options, and no --srt-step (nothing of the Plan runs here).
    const std::vector<std::string> argv = {
        "srun", "--jobid=" + std::to_string(job_.plan.job_id), "--overlap", "--nodes=1", "--ntasks=1",
        "--nodelist=" + node, "--job-name=host_" + phase, "--input=none", "bash", "-c", script};
    hosts.push_back({node, log, spawn_logged(argv, {}, {}, log)});
  }
  const double deadline = console_.seconds() + seconds;
  bool termed = false;
  for (;;) {
    const bool all_done = std::all_of(hosts.begin(), hosts.end(), [](Host& x) { return x.srun.finished(); });
    if (all_done) break;
    if (phase == "setup") check_signal();  // a cancel during setup ends the job now (teardown still runs)
    const double now = console_.seconds();
    if (now >= deadline && !termed) {
      for (auto& x : hosts)
        if (!x.srun.finished()) x.timed_out = true, x.srun.signal(SIGTERM);
      termed = true;
    }
    if (termed && now >= deadline + kKillAfterTermSeconds)
      for (auto& x : hosts)
        if (!x.srun.finished()) x.srun.signal(SIGKILL);
    sleep_s(kPollSeconds);
  }
  std::vector<std::string> failed_nodes;
  for (auto& x : hosts) {
    const std::string where = " on " + x.node + " (see " + job_.log_dir + "/" + x.log + ")";
    if (x.timed_out) {
      console_.line("host_setup (" + phase + ") timed out after " + std::to_string(int(seconds)) + " s" + where +
                    "; a command that waits for input (sudo asking for a password) does this");
    } else if (x.srun.exit_code() != 0) {
      console_.line("host_setup (" + phase + ") failed (" + x.srun.describe() + ")" + where);
      console_.tail(*job_.logs, x.log, kTailLines);
    } else {
      continue;
    }
    failed_nodes.push_back(x.node);
  }
  return failed_nodes;
}

void Launch::host_setup() {
  if (!job_.plan.host_setup) return;
  const HostSetupPlan& h = *job_.plan.host_setup;
  enter("host-setup");
  // Reaching this state arms the teardown, also for a teardown-only block and after a failure:
  // setup may have half-applied.
  host_setup_reached_ = true;
  if (h.from == "profile") console_.line("host_setup: the cluster profile's default_host_setup (the recipe has none)");
  if (h.script.empty()) return;
  const std::vector<std::string> failed_nodes = run_on_hosts("setup", h.script, h.timeout_seconds);
  if (failed_nodes.empty()) {
    console_.line("host_setup complete on " + std::to_string(h.nodes.size()) + " node(s)");
    return;
  }
  const std::string list = join(failed_nodes, ", ");
  if (h.ignore_failure) {
    console_.line("host_setup failed on " + list + " (ignore_failure: true, continuing)");
    return;
  }
  throw failed(Cause::host_setup, "host_setup failed on " + list + " (no worker was started)", failed_nodes);
}

void Launch::host_teardown(double seconds) {
  const HostSetupPlan& h = *job_.plan.host_setup;
  if (h.teardown.empty()) return;
  const std::vector<std::string> failed_nodes = run_on_hosts("teardown", h.teardown, std::max(1.0, seconds));
  if (!failed_nodes.empty())
    console_.line("host_setup teardown failed on " + join(failed_nodes, ", ") +
                  "; those nodes may be left as host_setup changed them");
}

}  // namespace srt::launch

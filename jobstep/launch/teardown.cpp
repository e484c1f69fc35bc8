// Every exit path ends here. Steps are signalled by their Slurm step id (as srtctl 2.0 does with
// scancel --signal), which reaches every task on the node, container or not; an srun whose step
// Slurm does not list yet is signalled directly (srun forwards TERM to its tasks).
#include <signal.h>

#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include "run_state.hpp"
#include "srt/poll.hpp"

namespace srt::launch {
namespace {

using StepRefs = std::vector<RunningStep*>;

bool all_ended(const StepRefs& steps, Console& console) {
  bool all = true;
  for (RunningStep* s : steps) {
    if (s->ended < 0 && s->srun.finished()) s->ended = console.seconds();
    all = all && s->ended >= 0;
  }
  return all;
}

bool wait_ended(const StepRefs& steps, double seconds, Console& console) {
  return sys::poll_until(seconds, std::chrono::milliseconds(50), [&] { return all_ended(steps, console); });
}

// step name -> "JOB.STEP" for the job's running steps.
std::map<std::string, std::string> step_ids(std::uint64_t job_id) {
  int status = 0;
  const std::string out = sys::run_capture({"squeue", "-h", "-s", "-j", std::to_string(job_id), "-o", "%i %j"}, 5, &status);
  std::map<std::string, std::string> ids;
  std::istringstream in(out);
  for (std::string id, name; in >> id >> name;) ids[name] = id;
  return ids;
}

void signal_steps(const StepRefs& steps, std::uint64_t job_id, int sig) {
  const auto ids = step_ids(job_id);
  std::vector<std::string> scancel = {"scancel", "--signal=" + std::string(sig == SIGKILL ? "KILL" : "TERM")};
  for (RunningStep* s : steps) {
    if (s->ended >= 0) continue;
    s->stopped = true;
    auto id = ids.find(s->process->step_name);
    if (id != ids.end()) scancel.push_back(id->second);
    else s->srun.signal(sig);
  }
  // Slurm 22.05's scancel reports "Invalid job id" for a step signalled on a multi-node job
  // although every task got the signal (seen in the lab): its verdict is not used; the wait
  // below and the KILL round decide.
  if (scancel.size() > 2) sys::run_capture(scancel, 5, nullptr, true);
}

void stop(const StepRefs& steps, std::uint64_t job_id, int grace_seconds, Console& console) {
  if (all_ended(steps, console)) return;
  std::string names;
  for (const RunningStep* s : steps)
    if (s->ended < 0) names += (names.empty() ? "" : " ") + s->process->step_name;
  console.line("stopping " + names + " (TERM, KILL after " + std::to_string(grace_seconds) + " s)");
  signal_steps(steps, job_id, SIGTERM);
  if (wait_ended(steps, grace_seconds, console)) return;
  signal_steps(steps, job_id, SIGKILL);
  if (wait_ended(steps, 5, console)) return;
  // srun itself hangs on: it holds nothing on the nodes once its step is gone.
  for (RunningStep* s : steps) s->srun.signal(SIGKILL);
  wait_ended(steps, 2, console);
}

}  // namespace

void stop_steps(std::vector<RunningStep>& steps, std::uint64_t job_id, int grace_seconds, Console& console) {
  StepRefs all;
  for (auto& s : steps) all.push_back(&s);
  stop(all, job_id, grace_seconds, console);
}

void stop_step(RunningStep& step, std::uint64_t job_id, int grace_seconds, Console& console) {
  stop({&step}, job_id, grace_seconds, console);
}

}  // namespace srt::launch

#include "node_failure.hpp"

#include <chrono>
#include <thread>

#include "srt/slurm_job_state.hpp"

namespace srt::launch {

namespace {
constexpr double kAskSeconds = 5;     // the launcher is being stopped: never wait long for an answer
constexpr double kSettleSeconds = 2;  // slurmctld may not have marked the job yet when a step ends
constexpr auto kPoll = std::chrono::milliseconds(200);

// `scontrol -o show job` once Slurm has decided: NODE_FAIL, another end (a cancel), or, still
// RUNNING or COMPLETING (which hides the base state) after kSettleSeconds, no decision (a worker
// that crashed by itself). A failed scontrol is asked again within the same time: slurmctld,
// busy ending the job on a loaded machine, was seen to refuse it once ("" and `error` then).
std::string settled_job_state(std::uint64_t job_id, std::string& error) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSettleSeconds);
  for (;;) {
    int status = 0;
    const std::string job =
        run_capture({"scontrol", "-o", "show", "job", std::to_string(job_id)}, kAskSeconds, &status, true);
    const std::string state = status == 0 ? scontrol_field(job, "JobState") : "";
    if (status == 0 && (ended_by_node_failure(job) || (state != "RUNNING" && state != "COMPLETING"))) return job;
    if (std::chrono::steady_clock::now() >= deadline) {
      if (status == 0) return job;
      error = job.substr(0, job.find('\n'));
      return "";
    }
    std::this_thread::sleep_for(kPoll);
  }
}

std::string steps_on(const std::vector<RunningStep>& steps, const std::string& node) {
  std::string on;
  for (const auto& s : steps)
    if (s.process && s.process->node == node) on += (on.empty() ? "" : ", ") + s.process->step_name + " on " + node;
  return on;
}

}  // namespace

std::optional<std::string> node_failure(std::uint64_t job_id, const std::vector<std::string>& job_nodes,
                                        const std::vector<RunningStep>& steps, std::string* asked) {
  std::string error;
  const std::string job = settled_job_state(job_id, error);
  if (!ended_by_node_failure(job)) {
    if (asked)
      *asked = job.empty() ? "scontrol show job did not answer (" + error + ")"
                           : "JobState=" + scontrol_field(job, "JobState") + " Reason=" + scontrol_field(job, "Reason");
    return std::nullopt;
  }
  std::string why = "node failure: Slurm ended the job (JobState=" + scontrol_field(job, "JobState") +
                    " Reason=" + scontrol_field(job, "Reason") + ")";
  std::string list;
  for (const auto& n : job_nodes) list += (list.empty() ? "" : ",") + n;
  int status = 0;
  const std::string sinfo = run_capture({"sinfo", "-h", "-N", "-n", list, "-o", "%N|%T|%E"}, kAskSeconds, &status);
  std::string failed;
  for (const NodeHealth& n : parse_sinfo_nodes(sinfo)) {
    if (!node_failed(n) || failed.find(n.node + " ") != std::string::npos) continue;  // sinfo -N repeats per partition
    const std::string on = steps_on(steps, n.node);
    failed += (failed.empty() ? "" : "; ") + n.node + " " + n.state + " (" + n.reason + ")" +
              (on.empty() ? "" : ", running " + on);
  }
  if (!failed.empty()) return why + ": " + failed;
  // A node's slurmstepd that still sends step messages makes slurmctld mark it responding again
  // (ReturnToService=2) within a second; then the steps that ended under us name it.
  std::string ended;
  for (const auto& s : steps)
    if (s.process && s.ended >= 0 && !s.stopped)
      ended += (ended.empty() ? "" : ", ") + s.process->step_name + " on " + s.process->node;
  return why + (ended.empty() ? ": sinfo shows no failed node of the job now"
                              : ": sinfo shows none failed now; ended: " + ended);
}

}  // namespace srt::launch

#include "node_failure.hpp"

#include <chrono>
#include <thread>

#include "slurmapi/job_state.hpp"
#include "srt/poll.hpp"

namespace srt::launch {

namespace {
constexpr auto kPoll = std::chrono::milliseconds(200);

// The job's state once Slurm has decided: NODE_FAIL, another end (a cancel), or, still RUNNING
// or COMPLETING after `settle` seconds, no decision (a worker that crashed by itself). A refused
// query is asked again within the same time (slurmctld is busy ending the job).
std::optional<slurmapi::JobState> settled_job_state(std::uint64_t job_id, double settle, std::string& error) {
  std::optional<slurmapi::JobState> s;
  sys::poll_until(settle, kPoll, [&] {
    s = slurmapi::job_state(job_id, error);
    return s && (s->node_failure || (s->state != "RUNNING" && !s->completing));
  });
  return s;
}

std::string steps_on(const std::vector<RunningStep>& steps, const std::string& node) {
  std::string on;
  for (const auto& s : steps)
    if (s.process && s.process->node == node) on += (on.empty() ? "" : ", ") + s.process->step_name + " on " + node;
  return on;
}

}  // namespace

std::optional<std::string> node_failure(std::uint64_t job_id, const std::vector<std::string>& job_nodes,
                                        const std::vector<RunningStep>& steps, std::string* asked,
                                        std::vector<std::string>* failed_nodes, double settle_seconds) {
  std::string error;
  const auto job = settled_job_state(job_id, settle_seconds, error);
  if (!job || !job->node_failure) {
    if (asked)
      *asked = !job ? "slurmctld did not answer (" + error + ")"
                    : "the job is " + job->state + (job->completing ? ", completing" : "");
    return std::nullopt;
  }
  const std::string why = "node failure: Slurm ended the job (" + job->state + (job->completing ? ", completing" : "") + ")";
  std::string failed;
  for (const NodeHealth& n : slurmapi::node_health(job_nodes)) {
    if (!node_failed(n) && n.node != job->failed_node) continue;
    const std::string on = steps_on(steps, n.node);
    if (failed_nodes) failed_nodes->push_back(n.node);
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
  return why + (ended.empty() ? ": no node of the job is down now" : ": no node is down now; ended: " + ended);
}

}  // namespace srt::launch

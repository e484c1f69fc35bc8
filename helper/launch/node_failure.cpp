#include "node_failure.hpp"

#include "srt/slurm_job_state.hpp"

namespace srt::launch {

namespace {
constexpr double kAskSeconds = 5;  // the launcher is being stopped: never wait long for an answer
}

std::optional<std::string> node_failure(std::uint64_t job_id, const std::vector<std::string>& job_nodes,
                                        const std::vector<RunningStep>& steps) {
  int status = 0;
  const std::string job = run_capture({"scontrol", "-o", "show", "job", std::to_string(job_id)}, kAskSeconds, &status);
  if (status != 0 || !ended_by_node_failure(job)) return std::nullopt;
  std::string why = "node failure: Slurm ended the job (JobState=" + scontrol_field(job, "JobState") +
                    " Reason=" + scontrol_field(job, "Reason") + ")";
  std::string list;
  for (const auto& n : job_nodes) list += (list.empty() ? "" : ",") + n;
  const std::string sinfo = run_capture({"sinfo", "-h", "-N", "-n", list, "-o", "%N|%T|%E"}, kAskSeconds, &status);
  std::string failed;
  for (const NodeHealth& n : parse_sinfo_nodes(sinfo)) {
    if (!node_failed(n) || failed.find(n.node + " ") != std::string::npos) continue;  // sinfo -N repeats per partition
    std::string on;
    for (const auto& s : steps)
      if (s.process && s.process->node == n.node) on += (on.empty() ? "" : ", ") + s.process->step_name + " on " + n.node;
    failed += (failed.empty() ? "" : "; ") + n.node + " " + n.state + " (" + n.reason + ")" +
              (on.empty() ? "" : ", running " + on);
  }
  return why + (failed.empty() ? ": sinfo names no failed node of the job" : ": " + failed);
}

}  // namespace srt::launch

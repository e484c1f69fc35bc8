#include "port_check.hpp"

#include "slurmapi/job_state.hpp"
#include "srt/port_check.hpp"

namespace srt::launch {

StepCommand port_check_command(const Job& job) {
  std::string nodelist;
  for (const auto& n : job.plan.nodes) nodelist += (nodelist.empty() ? "" : ",") + n.name;
  const std::string n = std::to_string(job.plan.nodes.size());
  StepCommand c;
  // On the host, as kv-relay steps run: pyxis and enroot share the host's network namespace,
  // so a port bound here is the port the worker's container would bind.
  c.srun = {"srun", "--jobid=" + std::to_string(job.plan.job_id), "--overlap", "--nodes=" + n, "--ntasks=" + n,
            "--ntasks-per-node=1", "--nodelist=" + nodelist, "--job-name=port_check", "--input=none"};
  c.command = {job.srt_helper, "port-check"};
  for (const auto& use : planned_ports(job.plan)) c.command.push_back(port_spec(use));
  return c;
}

std::optional<std::string> exclusivity_problem(const Job& job, std::string& note) {
  if (job.profile.node_sharing != NodeSharing::exclusive) return std::nullopt;
  std::string error;
  const auto state = slurmapi::job_state(job.plan.job_id, error);
  if (!state) {
    note = "cannot ask Slurm whether job " + std::to_string(job.plan.job_id) + " has its nodes to itself (" + error +
           "); the port check decides";
    return std::nullopt;
  }
  if (state->exclusive) return std::nullopt;
  return "the cluster profile says node_sharing: exclusive (every srt job uses the same ports), but job " +
         std::to_string(job.plan.job_id) +
         " may share its nodes with other jobs: submit it with --exclusive (srt-helper submit and run add it), "
         "or set node_sharing: shared in the profile";
}

}  // namespace srt::launch

// A job's state and its nodes' health, asked of slurmctld through libslurm in this process.
// Not through scontrol/sinfo: when Slurm ends a job it signals every process of the batch step,
// and a child the launcher started to ask "why?" died of that TERM (seen on the lab under load:
// "scontrol ... got TERM", so a node failure was reported as a plain step failure). The launcher
// handles TERM itself, so a call made here survives it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "srt/slurm_job_state.hpp"

namespace srt::slurmapi {

struct JobState {
  std::string state;        // base state: "RUNNING", "NODE_FAIL", "CANCELLED", ...
  bool completing = false;  // JOB_COMPLETING: Slurm is ending it
  bool node_failure = false;  // NODE_FAIL, or reason FAIL_DOWN_NODE ("NodeDown")
  std::string failed_node;  // the node Slurm names (libslurm 24.11 and later), else ""
  // No other job can be given these nodes: --exclusive, or a partition with OverSubscribe=EXCLUSIVE
  // (slurmctld reports both as JOB_SHARED_NONE in the job's `shared`).
  bool exclusive = false;
};

// nullopt when slurmctld does not answer; `error` then says why (slurm_strerror).
std::optional<JobState> job_state(std::uint64_t job_id, std::string& error);

// Each node's state in sinfo's words ("down*", "idle", "allocated", ...: base state lower
// case, '*' when not responding) and its reason; nodes slurmctld does not answer for are left out.
std::vector<NodeHealth> node_health(const std::vector<std::string>& nodes);

}  // namespace srt::slurmapi

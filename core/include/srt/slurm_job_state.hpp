// What Slurm says about a job and its nodes, judged by pure functions: a field of `scontrol -o
// show job` (srt-helper run reads the job's end through it) and whether a node's state means
// Slurm considers it failed (the launcher's node-failure verdict, slurmapi/job_state.hpp).
#pragma once
#include <string>

namespace srt {

// The value of `Key=` in `scontrol -o show job` output ("" when absent). Values end at the next
// space; the fields read here (JobState, ExitCode) never hold one.
std::string scontrol_field(const std::string& show_job, const std::string& key);

struct NodeHealth {
  std::string node;
  std::string state;   // in sinfo's words (%T): "down*", "idle", "allocated", "fail", ...
  std::string reason;  // sinfo %E: "Not responding", "none"
};

// A node Slurm considers failed: down, fail/failing, or not responding (a trailing '*').
bool node_failed(const NodeHealth& node);

}  // namespace srt

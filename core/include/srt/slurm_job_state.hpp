// Why Slurm ended a job, from its own tools' output: `scontrol -o show job J` (one line of
// Key=Value fields) and `sinfo -h -N -n NODES -o '%N|%T|%E'`. The launcher asks when it is
// signalled or a step dies: slurmctld sets a job NODE_FAIL (Reason=NodeDown) before it sends
// the batch step its TERM, so whichever the launcher sees first, it can tell a node failure
// from a user's scancel and name the node. Pure: text in, values out.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace srt {

// The value of `Key=` in `scontrol -o show job` output ("" when absent). Values end at the next
// space; the fields read here (JobState, Reason, ExitCode, NodeList) never hold one.
std::string scontrol_field(const std::string& show_job, const std::string& key);

// True when the job was ended by a node failure: JobState=NODE_FAIL, or (while it is still
// COMPLETING, which scontrol shows instead of the base state) Reason=NodeDown.
bool ended_by_node_failure(const std::string& show_job);

struct NodeHealth {
  std::string node;
  std::string state;   // sinfo %T: "down*", "idle", "allocated", "fail", ...
  std::string reason;  // sinfo %E: "Not responding", "none"
};

// `sinfo -h -N -o '%N|%T|%E'` lines -> one entry per line (malformed lines skipped).
std::vector<NodeHealth> parse_sinfo_nodes(const std::string& text);

// A node Slurm considers failed: down, fail/failing, or not responding (a trailing '*').
bool node_failed(const NodeHealth& node);

}  // namespace srt

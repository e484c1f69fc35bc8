// Whether Slurm itself ended the job because a node failed, asked of slurmctld (libslurm).
// slurmctld marks the job NODE_FAIL before it signals the batch step and the sruns, so the
// launcher may see its TERM, or a step on the dead node ending, in either order: on both paths
// it asks, so status.json says "node failure" and names the node and its steps either way.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run_state.hpp"

namespace srt::launch {

// "node failure: Slurm ended the job (Reason=NodeDown): node2 down* (Not responding), running
// decode_0 on node2"; nullopt when the job was not ended by a node failure or Slurm does not
// answer within a few seconds (`asked` then says what Slurm answered, for the console).
// `failed_nodes` gets the nodes Slurm reports failed (none when none is down any more).
// `settle_seconds`: how long a job still RUNNING is asked again, for slurmctld to mark it (a
// worker's end, or our TERM, may come first); 0 asks once (a relaunch must not wait on it).
std::optional<std::string> node_failure(std::uint64_t job_id, const std::vector<std::string>& job_nodes,
                                        const std::vector<RunningStep>& steps, std::string* asked = nullptr,
                                        std::vector<std::string>* failed_nodes = nullptr,
                                        double settle_seconds = 2);

}  // namespace srt::launch

// Before anything starts (docs/design.md "Ports"): that the nodes are the job's alone when the
// profile says node_sharing: exclusive, and that every port the Plan gives each node is free
// there (`srt-helper port-check`, one task per node).
#pragma once
#include <optional>
#include <string>

#include "launch.hpp"

namespace srt::launch {

// The one step that binds every planned port on every node.
StepCommand port_check_command(const Job& job);

// nullopt when the allocation is as the profile needs it; otherwise what is wrong and what to do.
// Slurm not answering is not a reason to stop (the port check still runs): `note` says so.
std::optional<std::string> exclusivity_problem(const Job& job, std::string& note);

}  // namespace srt::launch

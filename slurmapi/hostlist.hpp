// Slurm host lists ("mi355x-[01-03]") expanded with libslurm's own hostlist API, so every
// bracket and multi-range form means exactly what it means to Slurm.
#pragma once
#include <string>
#include <vector>

namespace srt::slurmapi {

// Hosts in Slurm's order. Throws srt::Error on an empty or malformed list.
std::vector<std::string> expand_hostlist(const std::string& hostlist);

}  // namespace srt::slurmapi

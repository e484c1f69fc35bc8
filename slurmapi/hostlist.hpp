// Slurm host lists ("mi355x-[01-03]") expanded with libslurm's own hostlist API, so every
// bracket and multi-range form means exactly what it means to Slurm.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace srt::slurmapi {

// Hosts in Slurm's order. Throws srt::Error on an empty or malformed list, and on one of more than
// `max_hosts` hosts (counted from libslurm's ranges before any name is made, so 'n[0-999999999]'
// costs nothing): slurmstepd bounds a list from the job's environment by the job's node count.
std::vector<std::string> expand_hostlist(const std::string& hostlist, std::size_t max_hosts = SIZE_MAX);

}  // namespace srt::slurmapi

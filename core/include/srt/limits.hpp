// The largest counts srt-spank plans, stated once. Every count a recipe or a snapshot gives (nodes,
// endpoints, GPUs, each parallel size) is checked against these where it is read, so arithmetic
// on them cannot overflow and no planned block of ports or ranks can be empty (docs/security.md
// "Recipes and snapshots").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt {

// Nodes of one role, and endpoints of one role: a job of 4096 nodes is four times the largest
// Plan the benchmarks build (tests/bench).
inline constexpr int kMaxRoleNodes = 4096;
inline constexpr int kMaxRoleWorkers = 4096;
// Nodes of one job: every role's nodes and the infrastructure node. slurmstepd expands no node
// list from the job's environment past this (nor past the step's node count, where Slurm gives one).
inline constexpr int kMaxJobNodes = 2 * kMaxRoleNodes + 1;
// GPUs of one endpoint: an endpoint spans at most kMaxRoleNodes nodes of at most 64 GPUs.
inline constexpr int kMaxEndpointGpus = 8192;
// Each parallel size of an engine (tensor, data, pipeline, prefill-context, expert).
inline constexpr int kMaxParallelSize = 1024;
// Ranks (processes) of one endpoint: the product of its parallel sizes. Each rank of an ATOM
// disaggregated worker takes one Mooncake handshake port, so no more than a port range holds.
inline constexpr std::int64_t kMaxEndpointRanks = 65536;

// The engine-flag spellings of a parallel size, compared after stripping dashes and with '_' as
// '-' ("tp", "-tp", "tensor_parallel_size"): the spellings ATOM, SGLang and vLLM read.
const std::vector<std::string>& parallel_size_flags();

// A parallel size's value as a whole number: an integer, or a string of digits (srtctl passes
// either through str()). nullopt for null, a boolean, a float or any other string.
std::optional<std::int64_t> whole_number(const Json& v);

// Why `v` is not a parallel size in [1, kMaxParallelSize], or "" when it is (null is "": absent).
std::string parallel_size_problem(const Json& v);

}  // namespace srt

// Before any worker starts (docs/design.md "The batch step"): every node's GPUs the Plan gives a
// worker are free, `srt-helper gpu-check` one task per node on the host. What it ended of the
// user's earlier jobs goes to the console; a GPU someone else holds ends the job naming node, GPU,
// PID and memory, with failure class "node" (the same job can run elsewhere: --exclude, --retry).
#pragma once
#include <string>
#include <vector>

#include "launch.hpp"

namespace srt::launch {

// The one step on every node with a worker's GPU; nullopt-like: srun empty when no node has one.
StepCommand gpu_check_command(const Job& job);

struct GpuCheckReport {
  std::vector<std::string> lines;   // every "gpu-check: node ..." line the step printed, in order
  std::vector<std::string> busy;    // the "busy:" ones, without the prefix
  std::vector<std::string> nodes;   // nodes with a busy GPU, in the Plan's node order
  std::vector<std::string> silent;  // checked nodes that printed no verdict (the step failed there)
};
GpuCheckReport read_gpu_check(const std::string& output, const Job& job);

}  // namespace srt::launch

// What /proc says of a process ROCm SMI lists as holding a GPU, and ending one that is ours.
// `srt-helper gpu-check` (docs/design.md "The batch step") gathers these facts; srt/gpu_clean.hpp
// judges them.
#pragma once
#include <string>

#include "srt/gpu_clean.hpp"

namespace srt::helper {

// Fills alive, uid, comm, job_id (SLURM_JOB_ID from its environment) for h.pid, and the start
// time ending checks again. A process that is gone leaves alive false.
struct ProcessIdentity {
  unsigned long long start_time = 0;  // /proc/<pid>/stat field 22, clock ticks since boot
};
ProcessIdentity read_holder(GpuHolder& h);

// Ends h.pid if it is still the process that was judged (same uid and start time, checked
// through a pidfd so a recycled PID is never signalled): TERM, then KILL after grace_seconds.
// "" when it is gone, else what happened.
std::string end_holder(const GpuHolder& h, const ProcessIdentity& id, double grace_seconds);

}  // namespace srt::helper

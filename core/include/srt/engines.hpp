// What the launcher asks of the engine or frontend that runs a planned process: the answers live
// in that program's adapter in core/plan, so the launcher stays engine-neutral.
#pragma once
#include <string>
#include <vector>

#include "srt/plan.hpp"

namespace srt {

// The Prometheus counter of completed requests the stall watch sums: on a router's metrics port,
// or a worker's HTTP port (/metrics). "" for a process that has none (benchmark, kv-relay).
std::string progress_metric(const Process& p);

// Shell globs teardown removes on a worker's node once its process group is gone (SGLang leaves
// shared-memory segments in /dev/shm); empty when the engine leaves nothing behind.
std::vector<std::string> teardown_sweep(const Process& p);

}  // namespace srt

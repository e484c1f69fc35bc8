// failure_class (status.json; docs/design.md "The batch step"): what a failed job's end points at,
// so that whoever reads it knows what to fix (the recipe, the image, the engine, the router, the
// benchmark) or that running the same job elsewhere may help (a node). One table, here; every way
// the launcher stops names its cause, and tests/unit/helper/test_failure.cpp holds the whole table.
#pragma once
#include <optional>
#include <string>

#include "srt/plan.hpp"

namespace srt::launch {

enum class Cause {
  recipe,         // the job's inputs: snapshot, profile, Plan digest, --points
  not_exclusive,  // node_sharing: exclusive and another job shares a node
  ports_busy,     // a planned port is held on a node before anything of ours started
  gpus_busy,      // a worker's GPU is held (another process, or VRAM in use) before any worker
  host_setup,     // host_setup's commands failed or timed out on a node (and ignore_failure is off)
  image,          // preflight: a role's image lacks what the recipe needs, or is not its identity
  step_ended,     // a critical step ended by itself (the role says whose)
  not_healthy,    // workers not healthy within the health budget
  router_gate,    // the router's /workers never listed every worker
  service,        // a recipe service was not ready in its timeout, or ended before it was
  stalled,        // nothing completed for the stall timeout
  results,        // the benchmark ran and its results are invalid, or a point's step failed
  telemetry,      // required power telemetry: exporters not ready, or the measurement not publishable
  node_failure,   // Slurm ended the job: a node failed
  time_limit,     // SIGUSR1 before Slurm's time limit
  cancelled,      // scancel or another signal
  internal,       // the launcher's own failure (a bug to report)
};

// "recipe", "image", "node", "engine", "router", "benchmark", "service", "stall", "telemetry",
// "timeout", "cancelled", or "internal". `role`: the Plan process that ended (step_ended).
const char* failure_class(Cause cause, std::optional<Role> role = std::nullopt);

// Only a node's fault is worth the same job on other nodes (`srt-helper run --retry`).
bool retry_elsewhere(const std::string& failure_class);

}  // namespace srt::launch

// One benchmark step per concurrency point (docs/design.md "Benchmark sweep and stalls"). When the
// recipe's command reads SRT_BENCHMARK_CONCURRENCIES (Plan::benchmark_points), the launcher starts
// it once per point with that point alone, as its own Slurm step: a point that stalls is cut and
// recorded while the rest of the sweep goes on or stops by policy, and status.json says which point
// ran, failed, stalled or never ran, with the reason, for `report` and for a resumed job.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "launch.hpp"
#include "srt/point_audit.hpp"

namespace srt::launch {

struct SweepPoint {
  int concurrency = 0;
  Process process;                // the planned benchmark with this point alone
  std::string state = "pending";  // pending | running | ok | failed | contaminated | stalled | not_run
  std::string reason;             // why it is not ok
  std::optional<int> exit_code;   // the step's, once it ended by itself
  // Runs cut short by a worker's relaunch (machine_supervise.cpp), each result set aside: the
  // point's state is that of its last run.
  int interrupted = 0;
  // What the per-point audit counted (srt/point_audit.hpp), once the point ended with a result.
  std::optional<PointAudit> audit;
};

// The per-point steps of the Plan's benchmark: "benchmark:c256", Slurm step benchmark_c256,
// SRT_BENCHMARK_CONCURRENCIES=256, each appending to the benchmark's log (srtctl's benchmark.out).
// Empty when the Plan has no points.
// `points`: those of the Plan's to run (Job::points).
std::vector<SweepPoint> sweep_points(const Plan& plan, const std::vector<int>& points);

// The sweep left its normal path (a worker died, a signal, the stall policy): the point that
// was running gets `reason`, the ones never started are not run, saying why.
void close_points(std::vector<SweepPoint>& points, const std::string& reason);

// status.json: "benchmark_points" {"256": {"state": "ok"}, "512": {"state": "stalled", "reason":
// ...}} ("interrupted_runs": N when a worker's relaunch cut N runs of it short; "request_audit":
// what the router counted against the benchmark's own, srt/point_audit.hpp) and
// "benchmark_exit_codes" {"256": 0} (what `report` already reads).
void points_to_status(const std::vector<SweepPoint>& points, Json& status);

// "c256 ok; c512 stalled: ...; c768, c1024 not run: ..." for the job's reason.
std::string points_summary(const std::vector<SweepPoint>& points);

}  // namespace srt::launch

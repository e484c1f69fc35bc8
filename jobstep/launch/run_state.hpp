// What the state machine tracks while the job runs: its steps and how it ended.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "srt/process.hpp"
#include "console.hpp"
#include "launch.hpp"
#include "srt/failure_class.hpp"
#include "srt/teardown_deadline.hpp"
#include "sweep.hpp"

namespace srt::launch {

struct RunningStep {
  const Process* process = nullptr;
  sys::Child srun;
  double started = 0;       // console seconds
  double ended = -1;        // console seconds; -1 while running
  bool stopped = false;     // ended by teardown, not by itself
};

struct Outcome {
  std::string state = "running";  // running | completed | failed | cancelled | timeout
  std::string reason;
  int exit_code = 0;              // the launcher's exit status
  std::string failure_class;      // srt/failure_class.hpp; "" unless the job failed, was cancelled or timed out
  std::vector<std::string> nodes; // the nodes the failure involves (a node's failure: those to avoid)
};

// Console seconds at which each state was entered ("plan", "workers", "healthy", ...).
using Timings = std::vector<std::pair<std::string, double>>;

// TERM to every step still running (scancel --signal=TERM JOB.STEP, else srun itself), then
// after `grace_seconds` KILL; waits (bounded) until every srun has ended.
void stop_steps(std::vector<RunningStep>& steps, std::uint64_t job_id, int grace_seconds, Console& console);
// The same for one step (a stalled benchmark point), the others left running.
void stop_step(RunningStep& step, std::uint64_t job_id, int grace_seconds, Console& console);

// <job_dir>/status.json, replaced atomically; written at every state change so a job killed
// outright (KillWait expired) still leaves its last known state.
// `points`: the per-point benchmark steps (sweep.hpp), empty for a whole-sweep benchmark.
void write_status(const Job& job, const std::vector<RunningStep>& steps, const Outcome& outcome,
                  const Timings& timings, double started_unix, const std::vector<SweepPoint>& points);

// <job_dir>/logs.tar.gz of <job_dir>/logs, each tar bounded by `deadline` (60 s at most).
void archive_logs(const Job& job, Console& console, const TeardownDeadline& deadline);

}  // namespace srt::launch

// srt-helper launch: the batch step's orchestrator (docs/design.md "The batch step"). A small state
// machine (machine.cpp) over a few concerns, one file each: the job's inputs and the Plan
// (inputs.cpp), container arguments (container.cpp), srun command lines (steps.cpp), child
// processes (sys/process.cpp), HTTP probes (probe.cpp), stopping steps (teardown.cpp), status.json
// (status.cpp) and the console (console.cpp).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "srt/safe_dir.hpp"
#include "srt/plan.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt::launch {

struct Options {
  std::string profile;        // --profile; default $SRTSLURM_CONFIG, then the installed profile
  std::string srt_exec;       // srt-exec on the nodes; default: beside srt-helper, else libexec
  int grace_seconds = 10;     // TERM -> KILL for every step
  // --stall-timeout: seconds the benchmark may go without a completed request or a new result
  // file before it is cut (stall.hpp); -1 = the profile's benchmark_stall_timeout; 0 = never.
  int stall_timeout_seconds = -1;
  // --stall-policy: after a stalled (or failed) point of a per-point sweep, stop the sweep (the
  // engine is suspect; the points after it are not run) or go on with the next point.
  bool stall_continue = false;
  std::string stall_policy = "stop";  // as given on the command line
  // --points: run only these of the Plan's benchmark_points (`run --resume` passes the points
  // its earlier job left missing or failed); empty: every point.
  std::vector<int> points;
  // --dry-run: print every step's command line (JSON) and start nothing. Outside a job it
  // reads --recipe, --nodelist and --job-id instead of the job's snapshot and environment.
  bool dry_run = false;
  std::string recipe, nodelist;
  std::uint64_t job_id = 0;
};

// Everything the launcher knows before it starts anything.
struct Job {
  Profile profile;
  Recipe recipe;
  Plan plan;
  PlanInputs plan_inputs;     // what the Plan was made from (preflight re-checks KV events with it)
  std::string job_dir;        // <output_dir or results_root>/<jobid>: status.json, logs.tar.gz
  std::string log_dir;        // <job_dir>/logs: every step's .out file (srtctl's layout)
  // What preflight read the worker images' ATOM picks with no NIC configured
  // (common_atom_nic_pick); each worker step gets it in SRT_ATOM_NIC_PICK. "" before preflight.
  std::string atom_nic_pick;
  std::string results_dir;    // host side of /results
  // The job's directories, held open and checked (srt/safe_dir.hpp): the launcher writes
  // every file of its own relative to them. Null in --dry-run, which writes nothing. `results`
  // is <results_root>/<jobid> (the same directory as `dir` without output_dir).
  std::shared_ptr<const helper::SafeDir> dir, logs, results;
  int health_budget_seconds = 0;  // health_check max_attempts x interval_seconds
  std::string srt_exec;       // host path of srt-exec
  std::string srt_helper;     // host path of this program (kv-relay steps run it)
  std::string recipe_text;    // what the plugin validated (the snapshot), kept as <job_dir>/recipe.yaml
  std::vector<int> points;    // the benchmark points this job runs: the Plan's, or --points of them
};

// Reads the job's snapshot, the profile, SLURM_JOB_NODELIST and SLURM_JOB_ID, computes the
// Plan and checks it against SRT_PLAN_DIGEST. Throws srt::Error saying what does not match.
Job load_job(const Options& options);

// One srun per Plan process. `srun` holds srun and its options, `command` what runs in the step.
// The step's output goes to `log_file` in the job's log directory, which the launcher opens
// itself (SafeDir::append_file: never through a link, never a file with other links) and hands to
// srun as its stdout and stderr: no `--output=PATH` that slurmstepd would open by path, following
// whatever a container planted there (docs/security.md "Containers").
struct StepCommand {
  std::vector<std::string> srun;
  std::vector<std::string> command;
  std::string log_file;             // a name in Job::logs; "" for a step whose output is read
  EnvList env;                      // set in srun's environment (srun exports it to the step)
  std::vector<std::string> unset_env;
  std::vector<std::string> argv() const;
};
StepCommand step_command(const Job& job, const Process& process);
Json step_command_json(const StepCommand& c, const Process& p);

// Container arguments for srun (pyxis) or a wrapper in front of the command (bwrap); none: empty.
struct ContainerCommand {
  std::vector<std::string> srun_options;
  std::vector<std::string> wrapper;   // goes before srt-exec
  std::string srt_exec;               // how the step reaches srt-exec
};
ContainerCommand container_command(const Job& job, const Process& process);

// podman/docker: one task per node of the job running `srt-helper clean-containers`, which
// removes every container of the job left there (a client Slurm killed leaves its container
// running). Empty for the other runtimes.
StepCommand clean_containers_command(const Job& job);

// After the steps stop: one task per worker node whose engine leaves shared-memory files behind
// (srt/engines.hpp teardown_sweep), removing the job user's files of those names (shm_sweep.cpp).
// Empty when the engines leave none, or the nodes may be shared with other jobs.
StepCommand shm_sweep_command(const Job& job);

// The named pyxis container of an image ("srt-<12 hex of its sha256>"), one per image per
// node, reused across jobs (pyxis's default container_scope=global keeps it).
std::string pyxis_container_name(const std::string& image);
}  // namespace srt::launch

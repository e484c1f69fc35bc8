// srt-helper submit and run: what InferenceX's runner does around srtctl today
// (InferenceX's runners/launch_mi355x-amds-srt.sh), as two subcommands.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "srt/unique_fd.hpp"
#include "srt/plan.hpp"
#include "srt/submit.hpp"
#include "srt/runner_config.hpp"
#include "srt/result_files.hpp"  // judge_point: the validity gate on a result file

namespace srt::run {

struct SubmitRequest {
  std::string recipe;                   // as the user named it: FILE or FILE:SELECTOR
  std::string dash_f;                   // -f FILE[:SELECTOR] (srtctl's spelling), instead of `recipe`
  std::string profile;                  // --profile
  std::vector<std::string> set, unset;  // overrides: the recipe is rewritten to a file of its own
  std::vector<std::string> sbatch_extra;
  int stall_timeout_seconds = -1;       // --stall-timeout, passed to the launcher; -1: the profile's
  std::string stall_policy;             // --stall-policy, passed to the launcher; "": its default (stop)
  std::vector<int> points;              // launch --points (run --resume): only these concurrency points
  std::string output;                   // sbatch --output, %j allowed ("": the rule in submit())
  std::optional<RunnerConfig> runner;   // apply: a runner's srtslurm.yaml (srt/runner_config.hpp)
};

struct Submitted {
  std::uint64_t job_id = 0;
  Recipe recipe;
  Profile profile;
  std::string recipe_file;              // what --srt-recipe got (gone once sbatch returned, with --set/--unset)
  // sbatch's log of the job (--output, %j filled in); "" = sbatch's default, slurm-<job>.out in
  // the working directory: a results_root others can write could hold a planted symlink there.
  std::string output_file;
};

// Builds sbatch's arguments (core/submit) and runs sbatch; throws srt::Error with sbatch's own
// message when it refuses (a bad recipe is refused by the plugin there, too).
Submitted submit(const SubmitRequest& request);

struct JobEnd {
  std::string state;                    // COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string exit_code;                // "0:0"
  bool timed_out_waiting = false;
};

// Polls squeue (every 0.5 s) until the job leaves the queue, printing the launcher's progress
// lines from `follow_file` as they appear; then asks sacct, or scontrol when there is no
// accounting. Bounded by `timeout_seconds`.
JobEnd wait_for_job(std::uint64_t job_id, const std::string& follow_file, double timeout_seconds);

struct Collected {
  std::string dir;                      // where the run's results are now
  std::vector<PointResult> points;      // one per result file found, and one per expected point missing
  bool all_valid = false;
  std::vector<std::string> problems;    // the collector's, one line each, when not all_valid
  // The launcher's own verdict (status.json): why the job ended, naming the step that died.
  std::string launcher_state, launcher_reason;
  std::string failure_class;                // status.json's (srt/failure_class.hpp), "" when it has none
  std::vector<std::string> failure_nodes;   // the nodes it involves
  std::vector<std::string> not_copied;  // "PATH: why" for each entry the copy left out (a symlink, a FIFO)
};

// Copies <results_root>/<job>/ into `results_dir`/<job>/ (directories and regular files; no link
// is followed), adds InferenceX's renamed copies and multinode_server_logs.tar.gz, and judges
// every point by InferenceX's collector rules. `expected` empty = whatever was found. Throws srt::Error when <results_root>/<job>
// is not this user's (srt/safe_dir.hpp): someone else made it, or others can write it.
Collected collect(const Submitted& job, const std::string& results_dir, const std::vector<int>& expected);

// `run --resume RESULTS/JOBID` (docs/running-recipes.md "Resume"): an earlier job's results tree,
// checked, and what is left to run in it. Only a tree this user owns and nobody else can write
// (srt/safe_dir.hpp), of a job that ran one step per point (plan.json's benchmark_points), whose
// recipe.yaml still has status.json's recipe_digest and whose profile_digest is the profile's now.
struct Resume {
  std::string dir;             // RESULTS/JOBID as given
  std::uint64_t job_id = 0;    // the earlier job
  std::string recipe_text;     // its recipe.yaml: what its plugin validated
  std::vector<int> grid;       // its benchmark_points
  std::vector<int> points;     // of those, the ones without a valid result there: what runs now
  // flock(LOCK_EX) on the tree, held from reading it to merging into it: two resumes of one tree
  // would each rewrite its status.json from what it read first.
  std::shared_ptr<const UniqueFd> lock;
};
// Throws srt::Error saying why the tree cannot be resumed and what to do.
Resume read_resume(const std::string& dir, const Profile& profile);

// The new job's valid results for the resumed points copied into the earlier tree's fixed-seq/
// (each file replaced atomically, never through a link), and its status.json updated: each
// resumed point's state and the job that ran it ("resumed_by"), benchmark_exit_codes, and
// completed once every point of the grid is valid. Returns the points still not valid.
std::vector<int> merge_resume(const Resume& resume, const Collected& fresh, std::uint64_t new_job);

// Where the srt-job script is: beside this program (build tree and install), else on PATH.
std::string find_job_script();

}  // namespace srt::run

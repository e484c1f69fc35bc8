// srt-helper launch: the job's batch step (srt-job runs it). The work is in launch/; this file
// only maps the command line onto launch::Options.
#include <memory>

#include "commands.hpp"
#include "launch/machine.hpp"

namespace srt::helper {

void add_launch(CLI::App& app) {
  auto o = std::make_shared<launch::Options>();
  CLI::App* cmd = app.add_subcommand("launch", "Run the job's batch step: workers, health, router, benchmark, teardown");
  cmd->add_option("--profile", o->profile, "Cluster profile (default: $SRTSLURM_CONFIG, then " SRT_DEFAULT_PROFILE ")");
  cmd->add_option("--srt-exec", o->srt_exec, "srt-exec on the nodes (default: beside srt-helper, else " SRT_LIBEXECDIR ")");
  cmd->add_option("--grace", o->grace_seconds, "Seconds between TERM and KILL when stopping steps")
      ->check(CLI::Range(1, 600));
  cmd->add_option("--stall-timeout", o->stall_timeout_seconds,
                  "Cut the benchmark after this many seconds without a completed request or a new result file "
                  "(default: the profile's benchmark_stall_timeout; 0: never)")
      ->check(CLI::Range(0, 7 * 24 * 3600));
  cmd->add_option("--stall-policy", o->stall_policy, "After a stalled or failed concurrency point (a benchmark reading "
                  "SRT_BENCHMARK_CONCURRENCIES runs one step per point): stop the sweep (default) or continue with the next")
      ->check(CLI::IsMember({"stop", "continue"}));
  cmd->add_option("--points", o->points, "Run only these of the recipe's concurrency points (comma-separated; "
                  "run --resume passes the ones its earlier job left missing or failed)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--dry-run", o->dry_run, "Print every step's srun command line as JSON and start nothing");
  cmd->add_option("--recipe", o->recipe, "Dry run outside a job: the recipe");
  cmd->add_option("--nodelist", o->nodelist, "Dry run outside a job: the node list");
  cmd->add_option("--job-id", o->job_id, "Dry run outside a job: the job id");
  cmd->callback([o] {
    o->stall_continue = o->stall_policy == "continue";
    exit_code = launch::run_launch(*o);
  });
}

}  // namespace srt::helper

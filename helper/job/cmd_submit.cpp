// srt-helper submit: sbatch with the node count and directives the recipe needs (srtctl's
// apply), srt-job as the script and --srt-recipe, so the plugin checks the recipe at submit.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "run/run.hpp"

namespace srt::helper {

void add_submit_request_options(CLI::App* cmd, run::SubmitRequest& req) {
  cmd->add_option("recipe", req.recipe, "Recipe file, FILE:SELECTOR for one variant of a variants file");
  cmd->add_option("-f", req.dash_f, "The recipe FILE[:SELECTOR] (srtctl's spelling)")->allow_extra_args(false);
  cmd->add_option("--profile", req.profile, "Cluster profile (default: $SRTSLURM_CONFIG, /etc/srt/cluster.yaml)");
  // One value per --set/--unset: a vector option would otherwise swallow what follows, and
  // `--set K=V -- --exclusive` would end the list at `--` and refuse the sbatch options.
  cmd->add_option("--set", req.set, "Override a recipe key: key.path=VALUE (repeatable)")->allow_extra_args(false);
  cmd->add_option("--unset", req.unset, "Remove a recipe key (repeatable)")->allow_extra_args(false);
  cmd->add_option("--stall-timeout", req.stall_timeout_seconds,
                  "Cut the benchmark after this many seconds without a completed request or a new result file "
                  "(default: the profile's benchmark_stall_timeout; 0: never)")
      ->check(CLI::Range(0, 7 * 24 * 3600));
  cmd->add_option("--stall-policy", req.stall_policy, "After a stalled or failed concurrency point (a benchmark reading "
                  "SRT_BENCHMARK_CONCURRENCIES runs one step per point): stop the sweep (default) or continue with the next")
      ->check(CLI::IsMember({"stop", "continue"}));
  cmd->add_option("sbatch_options", req.sbatch_extra, "Further sbatch options, after --");
}

void add_submit(CLI::App& app) {
  auto req = std::make_shared<run::SubmitRequest>();
  CLI::App* cmd = app.add_subcommand("submit", "Submit a recipe: node count and directives computed, then sbatch");
  add_submit_request_options(cmd, *req);
  cmd->callback([req] {
    const run::Submitted s = run::submit(*req);
    // What users and scripts expect from sbatch (InferenceX greps 'Job [0-9]+' / the number).
    std::printf("Submitted batch job %llu\n", static_cast<unsigned long long>(s.job_id));
  });
}

}  // namespace srt::helper

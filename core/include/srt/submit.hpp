// What `srt-helper submit` hands to sbatch, and how a finished job's results are judged and named
// (srtctl's templates/job_script_minimal.j2; InferenceX's runners/launch_mi355x-amds-srt.sh).
#pragma once
#include <string>
#include <vector>

#include "srt/plan.hpp"
#include "srt/report.hpp"
#include "srt/validity.hpp"  // PointResult: the validity gate, shared with launch and report

namespace srt {

struct SubmitOptions {
  std::string recipe_path;              // what --srt-recipe gets
  std::string job_script;               // srt-job
  std::string output;                   // --output (sbatch's own log), "" = sbatch's default
  std::string job_name_override;        // $RUNNER_NAME wins over the recipe's name, as srtctl
  std::vector<std::string> extra;       // the user's own sbatch options, after ours (they win)
  std::vector<std::string> script_args; // after the script: srt-job passes them to `srt-helper launch`
};

// sbatch's argv (without "sbatch"): nodes, job name, time, account, partition, the profile's GPU
// directive, segment/exclusive, default and recipe sbatch_directives, the time-limit signal, the
// recipe, the user's options, then the script.
std::vector<std::string> sbatch_arguments(const Recipe& recipe, const Profile& profile,
                                          const SubmitOptions& options);

// `-c<N>.json` -> N; -1 when the name has no such suffix (InferenceX's regex).
int concurrency_of(const std::string& file_name);

// InferenceX's renamed copy: <base>_srt-<job>_conc<N>_gpus_<T>[_ctx_<P>_gen_<D>].json
// (gpus: report.hpp's gpus_from_plan of the Plan recorded with the results).
std::string inferencex_name(const std::string& base, std::uint64_t job_id, int concurrency,
                            const report::GpuCount& gpus, bool disaggregated);

}  // namespace srt

// srtctl v2.18's post_eval as the launcher runs it (srtctl's SweepOrchestrator.run and
// _run_post_eval; the recipe key: PostEvalConfig): the job's environment saying EVAL_ONLY=true
// runs the eval instead of the benchmark, and its exit status is the job's; RUN_EVAL=true runs it
// after a benchmark that passed, and a failing eval does not fail the job. The eval runs where the
// benchmark runs, in its container with its environment, as the step `post_eval` logging to
// eval.out; the script writes its own artifacts (/logs/eval_results/, InferenceX's
// infx-eval-exit-code).
#pragma once
#include <string>

#include "srt/plan.hpp"

namespace srt {

struct EvalDecision {
  enum class Mode { none, after_benchmark, only };
  Mode mode = Mode::none;
  std::string source;   // what asked for it: "the job's RUN_EVAL", "benchmark.env.EVAL_ONLY", ...
  std::string problem;  // asked for, but the recipe gives no post_eval.command to run
};

// RUN_EVAL and EVAL_ONLY as the benchmark step sees them (srt/expected_points.hpp's rule:
// benchmark.env, then the recipe's environment, then the job's: `run_eval`/`eval_only` as getenv
// gives them), "true" in any case meaning yes, as srtctl's .lower() == "true". EVAL_ONLY wins.
EvalDecision eval_decision(const Recipe& recipe, const char* run_eval, const char* eval_only);

// `arg` with {endpoint} and {infmax_workspace} replaced, every occurrence.
std::string fill_eval_placeholders(std::string arg, const std::string& endpoint, const std::string& workspace);

// The eval's step: the benchmark's process (`bench`) with post_eval.command for argv, the step
// name post_eval and the log eval.out, not critical, and what srtctl always sets: MODEL_NAME (the
// name the workers serve the model under, from their argv) and EVAL_CONC (EVAL_CONC as the
// benchmark sees it, else the largest expected point). `inherited_eval_conc` and
// `inherited_conc_list`: the job's EVAL_CONC and CONC_LIST as getenv gives them.
Process eval_process(const Recipe& recipe, const Plan& plan, const Process& bench, const char* inherited_eval_conc,
                     const char* inherited_conc_list);

}  // namespace srt

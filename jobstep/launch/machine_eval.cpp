// post_eval (srt/post_eval.hpp): one step where the benchmark runs, after a benchmark that passed
// (RUN_EVAL: its failure is said and the job still succeeds, as srtctl's "benchmark result is
// still valid") or instead of it (EVAL_ONLY: its exit status is the job's).
#include <cstdlib>

#include "machine_impl.hpp"

namespace srt::launch {

std::string Launch::run_eval(const Process& bench, const EvalDecision& decision) {
  const bool fatal = decision.mode == EvalDecision::Mode::only;
  enter("eval");
  if (!decision.problem.empty()) {
    if (fatal) throw failed(Cause::recipe, "eval: " + decision.problem);
    console_.line("eval: not run: " + decision.problem + " (the benchmark's result stands)");
    return "eval not run";
  }
  const Process& e =
      eval_.emplace(eval_process(job_.recipe, job_.plan, bench, std::getenv("EVAL_CONC"), std::getenv("CONC_LIST")));
  console_.line("eval (" + decision.source + "=true): step " + e.step_name + " on " + e.node + " -> " + e.log_file);
  start(e);
  const std::size_t index = steps_.size() - 1;
  awaited_ = index;  // its end is the point of this state, not a failure check() should throw
  for (check(); steps_[index].ended < 0; check()) sleep_s(kPollSeconds);
  awaited_.reset();
  const RunningStep& done = steps_[index];
  if (done.srun.exit_code() == 0) {
    console_.line("eval: completed");
    return "eval completed";
  }
  const std::string what = "eval ended (" + done.srun.describe() + ")";
  console_.tail(*job_.logs, e.log_file, kTailLines);
  if (fatal) throw failed(Cause::step_ended, what, {e.node}, Role::benchmark);
  console_.line(what + "; the benchmark's result stands (" + decision.source + ": a failing eval does not fail the job)");
  return what;
}

}  // namespace srt::launch

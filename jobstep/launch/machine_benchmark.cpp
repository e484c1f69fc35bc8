// The benchmark state: one step running the recipe's own loop, or one step per concurrency point
// (sweep.hpp), watched for stalls (stall.hpp), and the results judged by the one validity gate.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>

#include "srt/collector_rules.hpp"
#include "srt/expected_points.hpp"
#include "srt/result_files.hpp"
#include "machine_impl.hpp"
#include "stall.hpp"
#include "stream.hpp"

namespace srt::launch {

std::string Launch::run_benchmark() {
  const Process* bench = job_.plan.find("benchmark");
  if (!bench) {
    enter("serving");
    console_.line("no benchmark step (benchmark.type " + job_.recipe.benchmark.type +
                  "): serving until the job is cancelled or reaches its time limit");
    for (;;) {
      check();
      sleep_s(kPollSeconds);
    }
  }
  const EvalDecision eval = eval_decision(job_.recipe, std::getenv("RUN_EVAL"), std::getenv("EVAL_ONLY"));
  if (eval.mode == EvalDecision::Mode::only) {
    console_.line("benchmark: not run (" + eval.source + "=true): the eval instead, its exit status the job's");
    return run_eval(*bench, eval) + " (" + eval.source + "=true: no benchmark)";
  }
  enter("benchmark");
  stall_ = options_.stall_timeout_seconds >= 0 ? options_.stall_timeout_seconds : job_.profile.benchmark_stall_timeout;
  if (stall_ > 0)
    console_.line("benchmark: cut after " + std::to_string(stall_) +
                  " s without a completed request or a new result file (--stall-timeout; profile benchmark_stall_timeout)");
  if (job_.plan.benchmark_points.empty()) {
    run_whole_sweep(*bench);
    check_results();
  } else {
    run_points();
  }
  if (eval.mode == EvalDecision::Mode::after_benchmark)  // only reached when it passed
    return "benchmark finished; " + run_eval(*bench, eval);
  return "benchmark finished";
}

// Runs the step at steps_[index] to its end (ended), until the stall watch sees nothing complete
// for the stall timeout (stalled), or until a worker is relaunched meanwhile (interrupted: the
// step is stopped if it still runs, since what it measured spans a worker's death); a signal or a
// critical step ending throws Stop.
Launch::StepEnd Launch::await_step(std::size_t index) {
  StallWatch watch(job_, stall_, console_.seconds());
  std::optional<OutputStream> stream;
  if (job_.recipe.benchmark.stream_output)
    stream.emplace(*job_.logs, steps_[index].process->log_file, "benchmark| ");
  const int relaunches = relaunches_begun_;
  StepEnd end = StepEnd::stalled;
  awaited_ = index;  // left set when check() throws: the job is over then, and nothing polls again
  for (;;) {
    check();
    const bool ended = steps_[index].ended >= 0;
    if (relaunches_begun_ != relaunches) {
      end = StepEnd::interrupted;
      break;
    }
    if (ended) {
      end = StepEnd::ended;
      break;
    }
    if (stream) stream->poll(console_);
    if (watch.stalled(console_.seconds())) {
      stall_seen_ = watch.seen();
      break;
    }
    sleep_s(kPollSeconds);
  }
  awaited_.reset();
  if (stream) stream->poll(console_, true);
  if (end == StepEnd::interrupted) stop_step(steps_[index], job_.plan.job_id, options_.grace_seconds, console_);
  return end;
}

// The interrupted point's result file under fixed-seq/, if it wrote one, renamed
// `<name>.interrupted_<run>` (no longer a *.json any reader takes) so the point's run again is
// judged alone; the name set aside, or "".
std::string Launch::set_aside_point(int concurrency, int run) {
  const auto files = find_result_files(results_path());
  const auto it = files.find(concurrency);
  if (it == files.end() || !job_.results) return "";
  const auto fixed = job_.results->sub("fixed-seq", false);
  if (!fixed) return "";
  const std::string name = std::filesystem::path(it->second).filename();
  const std::string aside = name + ".interrupted_" + std::to_string(run);
  std::string why;
  if (fixed->rename_new(name, aside, &why)) return "fixed-seq/" + aside;
  console_.line("benchmark c" + std::to_string(concurrency) + ": " + why);
  return "";
}

// A command that does not read SRT_BENCHMARK_CONCURRENCIES: one step loops over the grid
// itself, so a stall can only end the whole sweep.
// Runs `p` as a step, again each time a worker's relaunch interrupts it (each relaunch bounded by
// its endpoint's max_restarts), until it ends or stalls; `before(run)` comes before each start
// (run 0 first), and the restart record says `rerun` ran again. `index`: the last step's, in steps_.
Launch::StepEnd Launch::run_until_uninterrupted(const Process& p, const std::string& rerun, std::size_t& index,
                                                const std::function<void(int)>& before) {
  StepEnd end = StepEnd::interrupted;
  for (int run = 0; end == StepEnd::interrupted; ++run) {
    before(run);
    if (run > 0) {
      if (!restart_events_.empty()) restart_events_.back().rerun = rerun;
      write_restarts();
    }
    start(p);
    index = steps_.size() - 1;
    end = await_step(index);
  }
  return end;
}

void Launch::run_whole_sweep(const Process& bench) {
  std::size_t index = 0;
  // A worker relaunched during the sweep: the recipe's own loop is run again from its start
  // (each point's result file is written afresh).
  const StepEnd end = run_until_uninterrupted(bench, "the whole sweep", index, [this](int run) {
    if (run > 0)
      console_.line("benchmark: interrupted by a worker's relaunch; the whole sweep runs again (its step loops over "
                    "every point itself)");
  });
  if (end == StepEnd::stalled) {
    const std::string why = "benchmark stalled: nothing completed for " + std::to_string(stall_) + " s (" + stall_seen_ +
                            "); the benchmark and every worker were stopped (--stall-timeout " + std::to_string(stall_) + ")";
    console_.line(why);
    console_.tail(*job_.logs, bench.log_file, kTailLines);
    throw failed(Cause::stalled, why);
  }
  RunningStep& done = steps_[index];
  if (done.srun.exit_code() != 0) {
    const std::string what = "benchmark ended (" + done.srun.describe() + ")";
    console_.line(what);
    console_.tail(*job_.logs, bench.log_file, kTailLines);
    throw failed(Cause::step_ended, what, {bench.node}, Role::benchmark);
  }
}

// One step per point (sweep.hpp). A stalled point is cut (its step only) and recorded; so is a
// point whose step fails or whose result is invalid. By default the sweep stops there and the
// rest is not run: after a stall the engines are suspect, and after a failure the recipe's own
// loop (`set -e`, as srtctl runs it) would have stopped too. --stall-policy continue goes on.
// A point another client's requests reached (contaminated) is recorded as such and the sweep
// goes on whatever the policy: nothing of the job failed, and one stranger's request must not end
// a multi-hour run (the job still ends failed: that point's result is not the benchmark's own).
// A worker or the router ending, or a signal, still ends everything at once (check()).
void Launch::run_points() {
  points_ = sweep_points(job_.plan, job_.points);
  std::string grid;
  for (const auto& pt : points_) grid += " c" + std::to_string(pt.concurrency);
  console_.line("benchmark: one step per point (the command reads " + std::string(kBenchmarkPointsVariable) + "):" + grid +
                "; after a stalled or failed point the sweep " + (options_.stall_continue ? "goes on" : "stops") +
                " (--stall-policy " + (options_.stall_continue ? "continue" : "stop") +
                "), after one another client reached it goes on");
  audit_start();
  std::string not_run;  // set once the sweep stops early: why the rest is not run
  for (auto& pt : points_) {
    const std::string tag = "c" + std::to_string(pt.concurrency);
    if (!not_run.empty()) {
      pt.state = "not_run", pt.reason = not_run;
      continue;
    }
    std::size_t index = 0;
    // A worker relaunched while the point ran: what it measured spans the death, so its result
    // is set aside and the point runs again on the endpoint that came back.
    const StepEnd end = run_until_uninterrupted(pt.process, tag, index, [&](int run) {
      if (run > 0) {
        pt.interrupted = run;
        const std::string aside = set_aside_point(pt.concurrency, run);
        console_.line("benchmark " + tag + ": interrupted by a worker's relaunch; run again" +
                      (aside.empty() ? "" : " (" + aside + " set aside)"));
      }
      pt.state = "running";
      write_status(job_, steps_, outcome_, timings_, started_unix_, points_);
      window_begin(pt.concurrency);
      audit_begin(pt);
      console_.line("benchmark " + tag + ": step " + pt.process.step_name + " on " + pt.process.node + " -> " +
                    pt.process.log_file);
    });
    if (end == StepEnd::stalled) {
      window_end(pt.concurrency, "stalled", "the point stalled");
      pt.state = "stalled";
      pt.reason = "nothing completed for " + std::to_string(stall_) + " s (" + stall_seen_ + "; --stall-timeout " +
                  std::to_string(stall_) + ")";
      console_.line("benchmark " + tag + " stalled: " + pt.reason);
      console_.tail(*job_.logs, pt.process.log_file, kTailLines);
      stop_step(steps_[index], job_.plan.job_id, options_.grace_seconds, console_);
      if (!options_.stall_continue) not_run = "the sweep stopped after " + tag + " stalled (--stall-policy continue goes on)";
      continue;
    }
    RunningStep& done = steps_[index];
    pt.exit_code = done.srun.exit_code();
    const PointResult r = judge_point(pt.concurrency, find_result_files(results_path())[pt.concurrency]);
    const std::string contaminated = done.srun.exit_code() == 0 ? audit_end(pt, r) : "";
    const std::string stranger = router_workers_changed();
    if (done.srun.exit_code() != 0) pt.state = "failed", pt.reason = "the step ended (" + done.srun.describe() + ")";
    else if (!r.problem.empty()) pt.state = "failed", pt.reason = r.problem;
    else if (!stranger.empty()) pt.state = "failed", pt.reason = stranger;
    else if (!contaminated.empty()) pt.state = "contaminated", pt.reason = contaminated;
    else pt.state = "ok";
    window_end(pt.concurrency, pt.state, pt.reason);
    console_.line("benchmark " + tag + ": " +
                  (pt.state == "ok" ? "ok, " + std::to_string(r.completed) + " completed" : pt.state + ": " + pt.reason));
    if (pt.state != "ok") {
      console_.tail(*job_.logs, pt.process.log_file, kTailLines);
      if (!options_.stall_continue && pt.state != "contaminated")
        not_run = "the sweep stopped after " + tag + " failed (--stall-policy continue goes on)";
    }
  }
  write_status(job_, steps_, outcome_, timings_, started_unix_, points_);
  for (const auto& pt : points_)
    if (pt.state != "ok") {
      const bool stalled = std::any_of(points_.begin(), points_.end(), [](const SweepPoint& p) { return p.state == "stalled"; });
      throw failed(stalled ? Cause::stalled : Cause::results, "benchmark: " + points_summary(points_));
    }
  console_.line("benchmark results: " + std::to_string(points_.size()) + " point(s) under " +
                (results_path() / "fixed-seq").string() + ", every one valid");
}

std::filesystem::path Launch::results_path() const {
  return std::filesystem::path(job_.results_dir) / std::to_string(job_.plan.job_id);
}

// The validity gate (srt/validity.hpp) with InferenceX's collector rules on top
// (srt/collector_rules.hpp), as `report --check` applies them: every expected point has exactly
// one result, none is unexpected, each with completed requests and output tokens, at most 5 %
// failed prompts, max_concurrency equal to its file name's N and a benchmark_outcome that agrees
// with its counts, whatever the benchmark's exit status said. The results are read where the
// benchmark writes them: srtctl's logs/*isl*osl*/ in the job's directory, the AMD contract's
// fixed-seq/ under the results root.
void Launch::check_results() {
  const ExpectedPoints e = srt::expected_points(job_.recipe, std::getenv("CONC_LIST"), std::getenv("CONC"));
  if (!e.problem.empty()) throw failed(Cause::recipe, e.problem + ": the results cannot be judged");
  const std::vector<int>& expected = e.points;
  const std::string& source = e.source;
  std::vector<report::TreeFile> files = collect_result_tree(job_.job_dir);
  const std::filesystem::path results = results_path();
  std::error_code ec;
  if (!std::filesystem::equivalent(results, job_.job_dir, ec))  // the same tree when output_dir is the results root
    for (auto& f : collect_result_tree(results)) files.push_back(std::move(f));
  const std::string where = job_.job_dir + "/logs and " + (results / "fixed-seq").string();
  if (expected.empty() && files.empty()) {
    console_.line("benchmark results: none under " + where +
                  ", and neither the recipe (benchmark.concurrencies) nor CONC_LIST names a point: nothing to check");
    return;
  }
  const report::CollectorVerdict v = report::judge_collector_tree(
      files, expected, agentic_max_error_rate(job_.recipe, std::getenv("AIPERF_FAILED_REQUEST_THRESHOLD")));
  for (const auto& p : v.points)
    console_.line("  c" + std::to_string(p.concurrency) + ": " +
                  (p.problem.empty() ? "ok, " + std::to_string(p.completed) + " completed" : p.problem));
  if (!v.valid) {
    std::string problems;
    for (const auto& p : v.problems()) problems += (problems.empty() ? "" : "; ") + p;
    throw failed(Cause::results, "benchmark results invalid: " + problems + " (expected points from " + source + ")");
  }
  console_.line("benchmark results: " + std::to_string(v.points.size()) + " point(s) under " + where + ", every one valid");
}

}  // namespace srt::launch

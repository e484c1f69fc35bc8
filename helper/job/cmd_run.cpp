// srt-helper run: submit, follow, wait, collect, judge (InferenceX's runner around srtctl:
// InferenceX's runners/launch_mi355x-amds-srt.sh). Exit 0 only if the job completed 0:0 and every
// concurrency point has a valid result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "run/run.hpp"
#include "srt/expected_points.hpp"
#include "srt/failure_class.hpp"
#include "srt/safe_dir.hpp"
#include "srt/report.hpp"
#include "srt/report_files.hpp"

namespace srt::helper {

void add_submit_request_options(CLI::App* cmd, run::SubmitRequest& req);

namespace {

struct RunArgs {
  run::SubmitRequest request;
  std::string resume;  // --resume RESULTS/JOBID
  int retry = 0;       // --retry N: resubmit without the failed nodes, node failures only
  std::string results;
  double timeout = 0;
  bool pictures = true;
};

// What a finished attempt says about trying again elsewhere.
struct Attempt {
  int exit_code = 1;
  std::string failure_class;
  std::vector<std::string> nodes;
};

Attempt run_once(const RunArgs& a, const run::Resume* resume) {
  const run::Submitted job = run::submit(a.request);
  std::printf("Submitted batch job %llu\n", static_cast<unsigned long long>(job.job_id));
  const std::string follow =
      job.output_file.empty() ? "slurm-" + std::to_string(job.job_id) + ".out" : job.output_file;
  const double timeout = a.timeout > 0 ? a.timeout : 24 * 3600.0;
  const run::JobEnd end = run::wait_for_job(job.job_id, follow, timeout);
  std::printf("job %llu ended: %s, exit code %s%s\n", static_cast<unsigned long long>(job.job_id),
              end.state.c_str(), end.exit_code.c_str(), end.timed_out_waiting ? " (stopped waiting)" : "");

  // The points InferenceX's collector expects: the recipe's grid, else CONC_LIST (this shell's,
  // which sbatch exported to the job); a resumed job's are the ones it ran.
  const ExpectedPoints named = srt::expected_points(job.recipe, std::getenv("CONC_LIST"), std::getenv("CONC"));
  const std::vector<int> expected = resume ? resume->points : named.points;
  run::Collected c = run::collect(job, a.results, expected);
  if (!resume && !named.problem.empty()) c.all_valid = false, c.problems.insert(c.problems.begin(), named.problem);
  for (const auto& left_out : c.not_copied) std::printf("note: not copied: %s\n", left_out.c_str());
  if (!c.launcher_state.empty() && c.launcher_state != "completed")
    std::printf("reason: %s: %s\n", c.launcher_state.c_str(), c.launcher_reason.c_str());
  std::string nodes;
  for (const auto& n : c.failure_nodes) nodes += (nodes.empty() ? "" : ",") + n;
  if (!c.failure_class.empty())
    std::printf("failure class: %s%s\n", c.failure_class.c_str(), nodes.empty() ? "" : (" (" + nodes + ")").c_str());
  for (const auto& p : c.points)
    std::printf("  c%-6d %s\n", p.concurrency,
                p.problem.empty() ? ("ok: " + std::to_string(p.completed) + " completed, " +
                                     std::to_string(p.output_tokens) + " output tokens").c_str()
                                  : ("FAILED: " + p.problem).c_str());
  for (const auto& problem : c.problems) std::printf("results: %s\n", problem.c_str());
  bool merged_valid = false;
  if (resume) {
    const std::vector<int> left = run::merge_resume(*resume, c, job.job_id);
    std::string still;
    for (int n : left) still += " c" + std::to_string(n);
    std::printf("merged into %s (job %llu's tree): %s\n", resume->dir.c_str(),
                static_cast<unsigned long long>(resume->job_id), left.empty() ? "every point valid" : ("still not valid:" + still).c_str());
    merged_valid = left.empty();
    c.dir = resume->dir;  // the report and the verdict are the merged sweep's
  }
  try {
    const auto runs = report::load_runs(c.dir);
    for (const auto& r : runs) std::printf("\n%s", report::render_table(r).c_str());
    const bool counted = std::any_of(runs.begin(), runs.end(), [](const report::Run& r) { return r.gpus.known(); });
    if (a.pictures && !counted)
      std::printf("no picture: the job left no plan.json, so its GPU count is unknown\n");
    if (a.pictures && counted) {
      const report::Pictures pics = report::write_pictures(runs, c.dir);
      std::printf("picture: %s\n", pics.png.c_str());
    }
  } catch (const std::exception& e) {
    std::printf("no report: %s\n", e.what());
  }
  const bool ok = end.state == "COMPLETED" && end.exit_code == "0:0" && c.all_valid && (!resume || merged_valid);
  std::printf("results: %s\n", c.dir.c_str());
  return {ok ? 0 : 1, c.failure_class, c.failure_nodes};
}

// --retry N: a job that failed because of a node (failure class "node") is submitted again
// without the nodes it names (sbatch --exclude), up to N times; any other failure is the
// recipe's, the image's or the engine's, and would fail the same way elsewhere.
int run_recipe(RunArgs a, const run::Resume* resume = nullptr) {
  std::vector<std::string> excluded;
  for (int attempt = 0;; ++attempt) {
    const Attempt r = run_once(a, resume);
    if (r.exit_code == 0 || !launch::retry_elsewhere(r.failure_class) || r.nodes.empty()) return r.exit_code;
    for (const auto& n : r.nodes)
      if (std::find(excluded.begin(), excluded.end(), n) == excluded.end()) excluded.push_back(n);
    std::string list;
    for (const auto& n : excluded) list += (list.empty() ? "" : ",") + n;
    if (attempt >= a.retry) {
      std::printf("a node failed: to run it again without %s, add to the command: -- --exclude=%s%s\n", list.c_str(),
                  list.c_str(), a.retry > 0 ? "" : " (or pass --retry N)");
      return r.exit_code;
    }
    std::printf("retry %d of %d: a node failed (%s); submitting again with --exclude=%s\n", attempt + 1, a.retry,
                list.c_str(), list.c_str());
    auto& extra = a.request.sbatch_extra;
    extra.erase(std::remove_if(extra.begin(), extra.end(), [](const std::string& o) { return o.rfind("--exclude=", 0) == 0; }),
                extra.end());
    extra.push_back("--exclude=" + list);
  }
}

int resume_run(RunArgs a) {
  if (!a.request.recipe.empty() || !a.request.dash_f.empty() || !a.request.set.empty() || !a.request.unset.empty())
    throw CLI::ValidationError("--resume", "takes no recipe, --set or --unset: it runs the earlier job's own recipe.yaml again");
  const Profile profile = helper::load_profile(a.request.profile);
  const run::Resume r = run::read_resume(a.resume, profile);
  std::string points;
  for (int n : r.points) points += " c" + std::to_string(n);
  if (r.points.empty()) {
    std::printf("nothing to resume: every point of job %llu in %s is valid\n", static_cast<unsigned long long>(r.job_id),
                r.dir.c_str());
    return 0;
  }
  std::printf("resuming job %llu (%s):%s, missing or failed there\n", static_cast<unsigned long long>(r.job_id),
              r.dir.c_str(), points.c_str());
  // The recipe the earlier job's plugin validated, from a private directory (as --set's effective
  // recipe is): the plugin snapshots it at submit, nothing reads the path afterwards.
  helper::TempDir tmp("srt-resume.");
  tmp.dir().write_file("recipe.yaml", r.recipe_text, 0600);
  a.request.recipe = tmp.dir().path_of("recipe.yaml");
  a.request.points = r.points;
  return run_recipe(a, &r);
}

}  // namespace

void add_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Submit a recipe, follow it, wait, and collect and check its results");
  add_submit_request_options(cmd, args->request);
  cmd->add_option("--results", args->results, "Copy the job's results here (default: leave them in the profile's results_root)");
  cmd->add_option("--timeout", args->timeout, "Stop waiting after this many seconds");
  cmd->add_flag("!--no-pictures", args->pictures, "Do not draw the throughput-vs-interactivity picture");
  cmd->add_option("--retry", args->retry,
                  "When the job fails because of a node, submit it again without that node, up to N times")
      ->check(CLI::Range(0, 10));
  cmd->add_option("--resume", args->resume,
                  "Run again the points missing or failed in RESULTS/JOBID (a job that ran one step per point), "
                  "with its own recipe, and merge them into that tree");
  cmd->callback([args] { exit_code = args->resume.empty() ? run_recipe(*args) : resume_run(*args); });
}

}  // namespace srt::helper

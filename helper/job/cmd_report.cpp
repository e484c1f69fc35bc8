// srt-helper report: a sweep's results as a table per run and one throughput-vs-interactivity
// picture for all of them. The work is in core/report; this file reads options and prints.
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "srt/report.hpp"
#include "srt/report_files.hpp"
#include "srt/collector_rules.hpp"
#include "report_check.hpp"

namespace srt::helper {

namespace {

struct ReportArgs {
  std::vector<std::string> dirs;
  std::string out;
  int gpus = 0;
  bool json = false;
  bool no_pictures = false;
  std::string metric = "total";
  std::string python = "/usr/bin/python3";
  std::string title;
  bool check = false;
  std::string conc_list;
  bool conc_list_given = false;
};

// --check: the collector's rules, one verdict per tree; the expected points from --conc-list,
// else $CONC_LIST (InferenceX's workflow sets it), else whatever was found.
void check(const ReportArgs& a) {
  const char* env = std::getenv("CONC_LIST");
  const std::string text = a.conc_list_given ? a.conc_list : env ? env : "";
  const auto expected = report::parse_conc_list(text);
  if (!expected) {
    std::fprintf(stderr, "srt-helper report: --check: CONC_LIST '%s' is not a list of positive integers\n", text.c_str());
    exit_code = 2;
    return;
  }
  for (const auto& dir : a.dirs)
    if (!check_results_tree(dir, *expected)) exit_code = 1;
}

void run(const ReportArgs& a) {
  if (a.check) return check(a);
  report::LoadOptions load;
  load.gpus = a.gpus;
  std::vector<report::Run> runs;
  for (const auto& dir : a.dirs)
    for (auto& r : report::load_runs(dir, load)) runs.push_back(std::move(r));

  if (a.json) {
    std::cout << report::runs_to_json(runs).dump(2) << "\n";
  } else {
    for (std::size_t i = 0; i < runs.size(); ++i)
      std::cout << (i ? "\n" : "") << report::render_table(runs[i]);
  }
  std::cout.flush();

  // No count is no reason to hide the numbers: the table is out, one line says what is missing.
  std::vector<std::string> unknown;
  bool any_known = false;
  for (const auto& r : runs) {
    any_known = any_known || r.gpus.known();
    if (!r.gpus.known() && std::find(unknown.begin(), unknown.end(), r.dir) == unknown.end()) unknown.push_back(r.dir);
  }
  if (!unknown.empty()) {
    std::string dirs;
    for (const auto& d : unknown) dirs += (dirs.empty() ? "" : ", ") + d;
    const char* picture = a.no_pictures ? "" : any_known ? " and the picture leaves it out" : " and no picture is drawn";
    std::fprintf(stderr,
                 "note: %s: GPU count unknown (no plan.json, no _gpus_<N> in the result file names), so the per-GPU "
                 "figures are unknown%s; pass --gpus N (all prefill, decode and agg GPUs) or keep the job's plan.json "
                 "beside fixed-seq/\n",
                 dirs.c_str(), picture);
  }
  if (a.no_pictures || !any_known) return;

  report::PictureOptions pictures;
  pictures.python = a.python;
  pictures.y_metric = a.metric;
  pictures.title = a.title;
  // The table is already out: a plotting failure costs the picture, never the numbers.
  const auto written = report::write_pictures(runs, a.out.empty() ? a.dirs.front() : a.out, pictures);
  std::fprintf(stderr, "pictures: %s %s\n", written.png.c_str(), written.svg.c_str());
}

}  // namespace

void add_report(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "tables and the throughput-per-GPU vs interactivity picture of benchmark sweeps");
  cmd->add_option("RESULTS_DIR", args->dirs,
                  "a job's results directory (<root>/<jobid>, holding fixed-seq/<name>-c<N>.json), its fixed-seq/, "
                  "or a directory of InferenceX's renamed copies (<base>_conc<N>_gpus_<T>...json)")
      ->required();
  cmd->add_option("--out", args->out, "where the PNG and SVG go (default: the first RESULTS_DIR)");
  cmd->add_option("--gpus", args->gpus,
                  "GPUs of the run's workers, for runs without plan.json or _gpus_<N> in the result file names")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", args->json, "print the runs as JSON instead of tables");
  cmd->add_flag("--no-pictures", args->no_pictures, "print only");
  cmd->add_option("--metric", args->metric,
                  "picture's y axis: total (input+output tok/s per GPU, InferenceX's tput_per_gpu) or output")
      ->check(CLI::IsMember({"total", "output"}));
  cmd->add_option("--python", args->python, "python with matplotlib that draws the pictures");
  cmd->add_option("--title", args->title, "picture title");
  cmd->add_flag("--check", args->check,
                "judge each tree as InferenceX's collector does (missing, unexpected or duplicate points, max_concurrency, "
                "benchmark_outcome, more than 5% failed); exit 1 when one fails");
  cmd->add_option("--conc-list", args->conc_list, "--check: the expected points (default: $CONC_LIST, else those found)")
      ->each([args](const std::string&) { args->conc_list_given = true; });
  cmd->callback([args] { run(*args); });
}

}  // namespace srt::helper

// Benchmark results people can look at: the points of a sweep (one benchmark_serving.py result
// file per concurrency), the per-GPU and per-user figures InferenceX publishes, a text table and
// the throughput-vs-interactivity picture.
//
// Inputs, as a job leaves them (InferenceX's runners/launch_mi355x-amds-srt.sh):
//   <run>/fixed-seq/<name>-c<N>.json   benchmark_serving.py --save-result, one per concurrency
//   <run>/plan.json                    the Plan (srt-helper launch): worker processes and GPUs
//   <run>/status.json                  optional: "concurrencies" expected, "benchmark_exit_codes"
// or as InferenceX's launcher renames them (a directory of these and no <name>-c<N>.json):
//   <base>_conc<N>_gpus_<T>[_ctx_<P>_gen_<D>].json, results_concurrency_<N>_gpus_<T>[...].json
// The GPU count comes from plan.json, else from `_gpus_<T>` in the result file names, else from
// --gpus; without any the run is still read and shown, its per-GPU figures unknown (0).
//
// Figures follow InferenceX's utils/process_result.py: interactivity = 1000 / TPOT ms (tokens
// per second per user; computed only when TPOT > 0), tput_per_gpu = total token throughput /
// total GPUs, output_tput_per_gpu = output throughput / decode GPUs, input_tput_per_gpu =
// (total - output) throughput / prefill GPUs (agg: both are the total).
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt::report {

enum class PointState {
  ok,       // a result file, and the run passes the validity gate
  failed,   // a result file that fails it (see Point::failure)
  missing,  // an expected concurrency without a result file
};
const char* to_string(PointState s);

struct Latency {
  double median_ms = 0;
  double p99_ms = 0;
};

struct Point {
  int concurrency = 0;
  PointState state = PointState::missing;
  std::string file;      // result file as found; empty when missing
  std::string failure;   // why failed or missing, for people; empty when ok

  long num_prompts = 0;
  long completed = 0;
  long failed_requests = 0;  // num_prompts - completed
  long total_input_tokens = 0;
  long total_output_tokens = 0;
  double duration_s = 0;
  double request_throughput = 0;      // requests/s
  double output_throughput = 0;       // output tok/s
  double total_token_throughput = 0;  // (input + output) tok/s

  double output_per_gpu = 0;          // output tok/s / total GPUs
  double total_per_gpu = 0;           // total tok/s / total GPUs (InferenceX tput_per_gpu)
  double output_per_decode_gpu = 0;   // InferenceX output_tput_per_gpu
  double input_per_prefill_gpu = 0;   // InferenceX input_tput_per_gpu
  double interactivity = 0;           // tok/s/user = 1000 / median TPOT ms; 0 when TPOT is 0

  Latency ttft, tpot, itl, e2el;

  // A point with figures worth drawing: some output, a measurable TPOT.
  bool plottable() const { return state != PointState::missing && interactivity > 0 && total_per_gpu > 0; }
};

struct GpuCount {
  int total = 0;
  int prefill = 0;  // 0 for an aggregated run
  int decode = 0;
  int agg = 0;
  std::string source;  // "plan.json", "result file names" or "--gpus"; empty when unknown
  bool known() const { return total > 0; }
  bool disagg() const { return prefill > 0 && decode > 0; }
};

struct Run {
  std::string name;          // <name> of <name>-c<N>.json
  std::string dir;           // the run directory as given
  std::string job_id;        // plan.json job_id, else the run directory's name
  std::string state;         // status.json "state" when recorded
  std::string model;         // model_id of the first result file
  GpuCount gpus;
  std::string expected_source;  // "status.json" or "result files"
  std::vector<Point> points;    // ascending concurrency; failed and missing ones included
  // <run>/fingerprints.json (launch's preflight) found no GPU on any worker's node: a lab of
  // stand-ins, whose numbers are a timing model's, not a measurement. The table and the
  // picture say so.
  bool without_gpus = false;
  // <run>/logs/worker_restarts.json as one line ("decode_0 exit 1 at ...: ready, c8 run again"),
  // "" when no worker was relaunched.
  std::string worker_restarts;

  std::string label() const;    // "<name> (job <id>)", the picture's legend
  int count(PointState s) const;
};

struct LoadOptions {
  int gpus = 0;  // --gpus: used when neither plan.json nor the file names give the count; 0 = none
};

// What load_runs reads of a run directory. The caller gives it (sys/: the disk, in
// srt/report_files.hpp; a test: a tree in memory), so the report's rules do no I/O of their own.
class RunFiles {
 public:
  virtual ~RunFiles() = default;
  virtual bool exists(const std::filesystem::path& path) const = 0;
  virtual bool is_directory(const std::filesystem::path& path) const = 0;
  virtual bool is_regular_file(const std::filesystem::path& path) const = 0;
  // The leaf names of the regular files directly in `dir`. Throws srt::Error when it cannot be listed.
  virtual std::vector<std::string> regular_files(const std::filesystem::path& dir) const = 0;
  // The leaf names of the directories directly in `dir` that are not symbolic links; none when
  // `dir` cannot be listed.
  virtual std::vector<std::string> directories(const std::filesystem::path& dir) const = 0;
  // At most `max_bytes` of a regular file. Throws srt::Error naming it otherwise.
  virtual std::string read(const std::filesystem::path& file, std::size_t max_bytes) const = 0;
};

// Every run in `dir`: one per result name found (normally one). `dir` is a job's results
// directory (<root>/<jobid>, holding fixed-seq/) or the fixed-seq directory itself; or a job
// directory in srtctl's layout (<output_dir>/<jobid>, holding logs/*isl*osl*/), its logs/, or one
// *isl*osl* directory: one run per such directory, named after it.
// Throws srt::Error naming the file for malformed JSON, wrong types, no results, and GPU counts
// in file names that cannot be read or disagree. No GPU count at all is no error: the run's
// gpus are !known() and its per-GPU figures 0.
std::vector<Run> load_runs(const RunFiles& files, const std::filesystem::path& dir, const LoadOptions& options = {});

// What the table and the picture say of a run with Run::without_gpus.
inline constexpr const char* kStandInCaveat =
    "stand-in model, not a measurement (fingerprints.json: no GPU on the workers' nodes)";

// The GPU count in one result file's name (the basename of `file`): `_gpus_<T>` anywhere, ended
// by `_`, `-` or `.json`, with `_ctx_<P>_gen_<D>` right after it giving prefill and decode.
// nullopt when the name holds no `_gpus_<digits>`; srt::Error naming the file for a count of 0,
// one an int cannot hold, digits run into other characters, two counts, or ctx + gen != gpus.
std::optional<GpuCount> gpus_from_file_name(const std::string& file);

// One count for a run's result files: nullopt when no name holds one; srt::Error naming both
// files when two names disagree (never a guess between them).
std::optional<GpuCount> gpus_from_file_names(const std::vector<std::string>& files);

// One benchmark_serving.py result document -> a point (state ok or failed). `file` names it in
// errors. `exit_code` is the benchmark's exit status when recorded.
Point point_from_result(const Json& result, const std::string& file, int concurrency, const GpuCount& gpus,
                        std::optional<int> exit_code = std::nullopt);

// GPUs of the worker processes (prefill/decode/agg) of a Plan JSON document.
GpuCount gpus_from_plan(const Json& plan, const std::string& file);

// The run as a text table (header lines + one row per point, failed and missing ones marked):
// what `srt-helper report` prints and what `srt-helper run` prints at the end of a sweep.
std::string render_table(const Run& run);

// The runs as JSON (the --json contract).
Json runs_to_json(const std::vector<Run>& runs);

struct PictureOptions {
  std::string python = "/usr/bin/python3";  // Debian's, which has python3-matplotlib
  std::string y_metric = "total";           // "total" (tput_per_gpu) or "output" (output tok/s/GPU)
  std::string title;                        // default: "Throughput per GPU vs interactivity"
};

struct Pictures {
  std::filesystem::path png, svg;
};

// The JSON document the plotting script reads: one line per run, one marker per plottable point
// labelled cN; failed points drawn apart, and points that cannot be drawn (missing, nothing
// completed) listed under the chart. Runs whose GPU count is unknown are left out (per-GPU
// throughput is the y axis). Drawn by write_pictures (sys/, srt/report_files.hpp).
Json plot_input(const std::vector<Run>& runs, const std::filesystem::path& out_dir, const PictureOptions& options);

// plot_report.py, the plotter's text (embedded at build time).
extern const char* const kPlotScript;

}  // namespace srt::report

// The rules InferenceX's fixed-sequence processor applies to a results tree in srtctl's layout
// (<output_dir>/logs/*isl*osl*/results_concurrency_<N>_gpus_<T>[_ctx_<P>_gen_<D>].json), on top of
// srt-spank's own per-point gate (srt/validity.hpp): every expected point present once, none
// unexpected, max_concurrency equal to the file name's N, and a benchmark_outcome (when present)
// that agrees with the counts. Sources: InferenceX infx/results/fixed_sequence.py
// (process_multinode_results, build_result) and srt-slurm scripts/sa-bench/benchmark_outcome.py.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "srt/agentic_result.hpp"
#include "srt/validity.hpp"

namespace srt::report {

// benchmark_serving.py's MAX_FAILURE_RATE: above it the script raises SystemExit("FAIL: ..."), and
// srt-slurm's benchmark_outcome.py records it as max_failure_rate (exactly 5 % passes).
inline constexpr double kMaxFailureRate = 0.05;

struct SaBenchName {
  int concurrency = 0;
  int gpus = 0;
  int ctx = -1, gen = -1;  // -1: the name has no _ctx_P_gen_D
};
// "results_concurrency_8_gpus_16_ctx_8_gen_8.json" -> {8, 16, 8, 8}; nullopt for any other name.
std::optional<SaBenchName> parse_sa_bench_name(const std::string& file_name);

// A directory of srtctl's logs/ that InferenceX's collector reads results from: its name holds
// "isl" and, after it, "osl" ("sa-bench_isl_1024_osl_1024"; artifacts.py's *isl*osl* glob).
bool is_isl_osl_dir_name(const std::string& name);

// CONC_LIST as the workflow sets it ("4 8 16", commas allowed): nullopt when a value is not a
// positive integer, empty for an empty list.
std::optional<std::vector<int>> parse_conc_list(const std::string& text);

// What is wrong with a result's benchmark_outcome and max_concurrency against the file name's N,
// "" when nothing: benchmark_outcome absent, or exactly {status, requested, completed, failed,
// max_failure_rate: 0.05} with integer counts, 0 <= completed <= requested > 0, status "failed"
// iff more than 5 % failed, and top-level completed/num_prompts (when present) the same counts.
std::string collector_point_problem(const std::string& text, int concurrency);

struct TreeFile {
  std::string path;  // as shown in problems (relative to the tree)
  std::string text;
};

struct CollectorVerdict {
  std::vector<int> expected;                  // the points that had to be there
  std::vector<int> missing, unexpected, duplicate;
  std::vector<PointResult> points;            // one per file found, judged
  bool valid = false;
  std::vector<std::string> problems() const;  // one line each, for people
};

// Judges the result files found (each file's path ends in its sa-bench name, or in the AMD
// contract's <name>-c<N>.json, or it is a single-node lane's logs/<RESULT_FILENAME>.json whose
// max_concurrency names the point, or the file is an AgentX aggregate (srt/agentic_result.hpp),
// judged with `agentic_max_error_rate`; other files are ignored) against `expected`
// (empty: whatever was found is expected, and at least one point must be).
CollectorVerdict judge_collector_tree(const std::vector<TreeFile>& files, const std::vector<int>& expected,
                                      double agentic_max_error_rate = kAgenticMaxErrorRate);

}  // namespace srt::report

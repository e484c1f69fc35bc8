// The validity gate: one rule, used by `srt-helper launch` (the job's exit status), `run` (its
// verdict and InferenceX's copies) and `report` (a point's state). A planned concurrency point
// fails without a result, with no completed request or no output token, or with more than 5 %
// of its prompts failed (benchmark_serving.py's own exit rule; report::point_from_result holds
// the rules). Pure: the caller reads the files (srt/result_files.hpp).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace srt {

struct PointResult {
  int concurrency = 0;
  std::string file;       // "" = missing
  int completed = 0;
  long long requested = 0;  // num_prompts: the requests of its measured run
  long long output_tokens = 0;
  std::string problem;    // "" = valid
};

// One result file's text, judged; `file` names it in the problem.
PointResult judge_point_text(int concurrency, const std::string& file, const std::string& text);
// A planned point no file was found for, or one that could not be read (`why`).
PointResult missing_point(int concurrency, const std::string& file = "", const std::string& why = "no result file");

struct SweepVerdict {
  std::vector<PointResult> points;  // ascending concurrency: every planned one, then any found beyond the plan
  bool valid = false;               // at least one point, and none with a problem
  // "c512: no result file; c768: 52 of 768 requests failed (...)" (the first `limit` problems).
  std::string problems(std::size_t limit = 4) const;
};

// `planned`: the recipe's concurrency grid (empty when the recipe names none: then only what
// was found is judged, and an empty sweep is not valid). `found`: judged result files by
// concurrency.
SweepVerdict judge_sweep(const std::vector<int>& planned, const std::map<int, PointResult>& found);

}  // namespace srt

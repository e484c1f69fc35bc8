// AgentX results: the aggregate InferenceX's AgentX benchmark writes per concurrency point
// (benchmarks/srt_agentic.sh, then `python -m infx.results.agentic.process_agentic_result`):
// $AGENTIC_OUTPUT_DIR/$RESULT_FILENAME.json, `<base>_conc<N>.json` when the script loops over
// CONC_LIST. What makes a point valid is what InferenceX's workflow and collector check
// (SemiAnalysisAI/InferenceX benchmarks/srt_agentic.sh @ 4fa2a2ff and the tests of its
// infx.results.agentic processor, which list the aggregate's keys): its conc is the point's,
// num_requests_successful is a positive count, no RUN_INVALID.json beside it, and at most the
// failed-request threshold (AIPERF_FAILED_REQUEST_THRESHOLD, 0.10 by default) of its profiled
// requests were dropped for errors. Pure: the caller reads the files.
#pragma once
#include <optional>
#include <string>

#include "srt/validity.hpp"

namespace srt::report {

// AIPerf's --failed-request-threshold as srt_agentic.sh passes it by default.
inline constexpr double kAgenticMaxErrorRate = 0.10;

// The point `text` is the AgentX aggregate of (its "conc"), when it is one: a JSON object with
// scenario_type "agentic-coding" and an integer conc > 0. nullopt for anything else, a
// benchmark_serving.py result included.
std::optional<int> agentic_concurrency(const std::string& text);

// The concurrency a `<base>_conc<N>.json` name gives, nullopt when the name has no such suffix.
std::optional<int> agentic_name_concurrency(const std::string& file_name);

// One aggregate judged for point `concurrency` (`file` names it in the problem); `invalid_marker`:
// a RUN_INVALID.json sits beside it. completed = num_requests_successful, output_tokens = the
// window's output throughput times its duration when both are given.
PointResult judge_agentic_text(int concurrency, const std::string& file, const std::string& text,
                               double max_error_rate = kAgenticMaxErrorRate, bool invalid_marker = false);

}  // namespace srt::report

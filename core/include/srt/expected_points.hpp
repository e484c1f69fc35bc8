// The concurrency points a job's results must hold, as InferenceX's collector takes them: the
// recipe's grid (benchmark.concurrencies), else CONC_LIST as the benchmark step sees it: its
// benchmark.env, then the recipe's environment, then the job's own (sbatch exports the submitting
// shell's, which InferenceX's workflow sets). The launcher's gate and `run` both ask this.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "srt/recipe.hpp"

namespace srt {

struct ExpectedPoints {
  std::vector<int> points;  // empty: nothing names them (whatever was found is judged)
  std::string source;       // "benchmark.concurrencies", "benchmark.env.CONC_LIST", "environment.CONC_LIST",
                            // "the job's CONC_LIST", then the same for CONC
  std::string problem;      // "" or why the list cannot be read ("'4 x' is not a list of positive integers")
};

// `inherited`: CONC_LIST in the job's environment, as getenv gives it (nullptr: unset). Without
// a CONC_LIST anywhere, CONC names the one point (InferenceX's AgentX and single-node variants:
// srt_agentic.sh runs ${CONC_LIST:-$CONC}); `inherited_conc` is the job's CONC.
ExpectedPoints expected_points(const Recipe& recipe, const char* inherited, const char* inherited_conc = nullptr);

// A variable as the benchmark step sees it: benchmark.env, then the recipe's environment, then
// the job's own (`inherited`, as getenv gives it). The value and where it came from
// ("benchmark.env.NAME", "environment.NAME", "the job's NAME"); nullopt when none sets it.
struct SeenVariable {
  std::string value, source;
};
std::optional<SeenVariable> benchmark_variable(const Recipe& recipe, const std::string& name, const char* inherited);

// The failed-request fraction an AgentX point may have: AIPERF_FAILED_REQUEST_THRESHOLD as the
// benchmark step sees it (`inherited`: the job's), else 0.10 (srt_agentic.sh's default); a value
// that is not a fraction in [0, 1] counts as unset.
double agentic_max_error_rate(const Recipe& recipe, const char* inherited);

}  // namespace srt

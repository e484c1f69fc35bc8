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
                            // "the job's CONC_LIST"
  std::string problem;      // "" or why the list cannot be read ("'4 x' is not a list of positive integers")
};

// `inherited`: CONC_LIST in the job's environment, as getenv gives it (nullptr: unset).
ExpectedPoints expected_points(const Recipe& recipe, const char* inherited);

// A variable as the benchmark step sees it: benchmark.env, then the recipe's environment, then
// the job's own (`inherited`, as getenv gives it). The value and where it came from
// ("benchmark.env.NAME", "environment.NAME", "the job's NAME"); nullopt when none sets it.
struct SeenVariable {
  std::string value, source;
};
std::optional<SeenVariable> benchmark_variable(const Recipe& recipe, const std::string& name, const char* inherited);

}  // namespace srt

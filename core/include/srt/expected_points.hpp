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

// `inherited`: CONC_LIST in the job's environment (nullopt: unset).
ExpectedPoints expected_points(const Recipe& recipe, const std::optional<std::string>& inherited);

}  // namespace srt

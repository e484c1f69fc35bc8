#include "srt/expected_points.hpp"

#include <optional>

#include "srt/collector_rules.hpp"

namespace srt {

std::optional<SeenVariable> benchmark_variable(const Recipe& recipe, const std::string& name, const char* inherited) {
  // The step's own environment wins over the recipe's, as srun sets benchmark.env last.
  std::optional<SeenVariable> seen;
  for (const auto& [k, v] : recipe.environment)
    if (k == name) seen = SeenVariable{v, "environment." + name};
  for (const auto& [k, v] : recipe.benchmark.env)
    if (k == name) seen = SeenVariable{v, "benchmark.env." + name};
  if (!seen && inherited) seen = SeenVariable{inherited, "the job's " + name};
  return seen;
}

ExpectedPoints expected_points(const Recipe& recipe, const char* inherited) {
  ExpectedPoints e;
  if (!recipe.benchmark.concurrencies.empty()) {
    e.points = recipe.benchmark.concurrencies;
    e.source = "benchmark.concurrencies";
    return e;
  }
  const std::optional<SeenVariable> seen = benchmark_variable(recipe, "CONC_LIST", inherited);
  if (!seen) return e;
  e.source = seen->source;
  const auto parsed = report::parse_conc_list(seen->value);
  if (!parsed) e.problem = e.source + " '" + seen->value + "' is not a list of positive integers";
  else e.points = *parsed;
  return e;
}

}  // namespace srt

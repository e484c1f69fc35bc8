#include "srt/expected_points.hpp"

#include <cstdlib>
#include <optional>

#include "srt/agentic_result.hpp"
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

ExpectedPoints expected_points(const Recipe& recipe, const char* inherited, const char* inherited_conc) {
  ExpectedPoints e;
  if (!recipe.benchmark.concurrencies.empty()) {
    e.points = recipe.benchmark.concurrencies;
    e.source = "benchmark.concurrencies";
    return e;
  }
  // srt_agentic.sh runs ${CONC_LIST:-$CONC}: an AgentX variant names its one point with CONC.
  std::optional<SeenVariable> seen = benchmark_variable(recipe, "CONC_LIST", inherited);
  if (!seen) seen = benchmark_variable(recipe, "CONC", inherited_conc);
  if (!seen) return e;
  e.source = seen->source;
  const auto parsed = report::parse_conc_list(seen->value);
  if (!parsed) e.problem = e.source + " '" + seen->value + "' is not a list of positive integers";
  else e.points = *parsed;
  return e;
}

double agentic_max_error_rate(const Recipe& recipe, const char* inherited) {
  const std::optional<SeenVariable> seen = benchmark_variable(recipe, "AIPERF_FAILED_REQUEST_THRESHOLD", inherited);
  if (!seen) return report::kAgenticMaxErrorRate;
  char* end = nullptr;
  const double v = std::strtod(seen->value.c_str(), &end);
  if (end == seen->value.c_str() || *end != '\0' || !(v >= 0 && v <= 1)) return report::kAgenticMaxErrorRate;
  return v;
}

}  // namespace srt

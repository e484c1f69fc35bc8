#include "srt/expected_points.hpp"

#include <optional>

#include "srt/collector_rules.hpp"

namespace srt {

ExpectedPoints expected_points(const Recipe& recipe, const char* inherited) {
  ExpectedPoints e;
  if (!recipe.benchmark.concurrencies.empty()) {
    e.points = recipe.benchmark.concurrencies;
    e.source = "benchmark.concurrencies";
    return e;
  }
  // The step's own environment wins over the recipe's, as srun sets benchmark.env last.
  std::optional<std::string> text;
  for (const auto& [k, v] : recipe.environment)
    if (k == "CONC_LIST") text = v, e.source = "environment.CONC_LIST";
  for (const auto& [k, v] : recipe.benchmark.env)
    if (k == "CONC_LIST") text = v, e.source = "benchmark.env.CONC_LIST";
  if (!text && inherited) text = std::string(inherited), e.source = "the job's CONC_LIST";
  if (!text) return e;
  const auto parsed = report::parse_conc_list(*text);
  if (!parsed) e.problem = e.source + " '" + *text + "' is not a list of positive integers";
  else e.points = *parsed;
  return e;
}

}  // namespace srt

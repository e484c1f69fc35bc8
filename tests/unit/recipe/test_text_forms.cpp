// The time limit and the x-joined concurrencies are matched without std::regex (text_forms.cpp).
// The patterns they replaced are the oracle here: every string of up to five characters over the
// alphabets that matter, loaded as a recipe, is accepted exactly when the old regex matched it.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "minimal_recipe.hpp"
#include "srt/recipe.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_text_forms {

namespace {

const std::string kBase = srt_test::kMinimalRecipe;

// Every string of length 1..max over `alphabet`.
std::vector<std::string> strings_over(const std::string& alphabet, std::size_t max) {
  std::vector<std::string> out, level = {""};
  for (std::size_t n = 1; n <= max; ++n) {
    std::vector<std::string> next;
    for (const auto& s : level)
      for (char c : alphabet) next.push_back(s + c);
    out.insert(out.end(), next.begin(), next.end());
    level = std::move(next);
  }
  return out;
}

// The message of the diagnostic at `path`, or "" when the recipe loads without one there.
std::string error_at(const std::string& text, const std::string& path) {
  try {
    srt::RecipeOptions o;
    o.default_gpus_per_node = 8;
    (void)srt::load_recipe_text(text, "r.yaml", o);
  } catch (const srt::Error& e) {
    for (const auto& d : e.diagnostics())
      if (d.key_path == path) return d.message;
  }
  return "";
}

}  // namespace

TEST_CASE("a Slurm time limit is what the regex it replaced accepted", "[recipe]") {
  const std::regex old(
      R"(^([0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]+(:[0-9]{1,2}(:[0-9]{1,2})?)?|UNLIMITED|INFINITE|unlimited|infinite)$)");
  std::vector<std::string> cases = strings_over("07:-", 5);
  for (const char* s : {"08:00:00", "1-02:03:04", "123:45", "1:2:3:4", "1-2-3", "100-1:1", "1:123", "12:34:567",
                        "UNLIMITED", "unlimited", "Unlimited", "INFINITE", "infinite", "INFINITEx", " 1", "1 ", "1a"})
    cases.emplace_back(s);
  int accepted = 0;
  for (const auto& s : cases) {
    INFO("time_limit '" << s << "'");
    const std::string e = error_at(kBase + "slurm: {time_limit: '" + s + "'}\n", "slurm.time_limit");
    CHECK(e.empty() == std::regex_match(s, old));
    if (!e.empty()) CHECK(e == "'" + s + "' is not a Slurm time limit");
    accepted += e.empty() ? 1 : 0;
  }
  CHECK(accepted > 50);  // the alphabet reaches every accepted form, not only refusals
}

TEST_CASE("x-joined concurrencies are what the regex they replaced accepted", "[recipe]") {
  const std::regex old(R"(^[1-9][0-9]*(x[1-9][0-9]*)*$)");
  std::vector<std::string> cases = strings_over("01x9", 5);
  for (const char* s : {"4x8x16", "256x512x1024x2048", "04x8", "4xx8", "4x0", "x4", "4x", "4X8", "4x8 "}) cases.emplace_back(s);
  int accepted = 0;
  for (const auto& s : cases) {
    INFO("concurrencies '" << s << "'");
    const std::string e = error_at(kBase + "benchmark: {type: custom, command: x, concurrencies: '" + s + "'}\n",
                                   "benchmark.concurrencies");
    CHECK(e.empty() == std::regex_match(s, old));
    accepted += e.empty() ? 1 : 0;
  }
  CHECK(accepted > 50);
}

}  // namespace test_text_forms

// libFuzzer target: the recipe and profile loaders (YAML reader, schema, rules, overrides) on any
// bytes. The property: every input ends as a Recipe/Profile or as srt::Error with a message; any
// other exception, a crash, a hang or an ASan/UBSan report is a bug. Built with clang
// (-DSRT_FUZZ=ON) as fuzz_recipe, and with any compiler as fuzz_replay_recipe, which runs the
// seeds and every past finding (tests/fuzz/regressions/recipe) as a normal test.
#include <cstddef>
#include <cstdint>
#include <string>

#include "srt/error.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  srt::RecipeOptions opts;
  opts.default_gpus_per_node = 8;
  try {
    const srt::Recipe r = srt::load_recipe_text(text, "fuzz.yaml", opts);
    (void)r;
  } catch (const srt::Error& e) {
    if (std::string(e.what()).empty()) __builtin_trap();  // an error must say something
  }
  // --set values are YAML too, parsed into a recipe that is otherwise fine.
  opts.set = {"benchmark.isl=" + text.substr(0, 256)};
  try {
    (void)srt::load_recipe_text("name: x\n", "fuzz-set.yaml", opts);
  } catch (const srt::Error&) {
  }
  try {
    (void)srt::profile_from_document(srt::parse_yaml(text, "fuzz-profile.yaml"));
  } catch (const srt::Error&) {
  }
  return 0;
}

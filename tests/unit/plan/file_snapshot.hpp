// A recipe file's snapshot as the plugin's submit side takes it (srt/snapshot.hpp), for the tests
// that plan "as a node does".
#pragma once
#include <string>

#include "srt/files.hpp"
#include "srt/job_plan.hpp"
#include "srt/snapshot.hpp"
#include "srt/variants.hpp"

namespace test_recipes {

inline srt::Snapshot file_snapshot(const std::string& path, const srt::Profile& profile, const std::string& shown = "") {
  const std::string text = srt::read_text_file(path, 1 << 20);
  const srt::RecipeRef ref{path, "", shown.empty() ? path : shown};
  auto sources = srt::open_recipe_text(text, ref, srt::job_recipe_options(profile));
  return srt::make_snapshot(ref.given, text, sources.front(), profile, SRT_VERSION);
}

}  // namespace test_recipes

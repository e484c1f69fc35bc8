// A recipe argument as the commands take it, FILE or FILE:SELECTOR (srtctl's
// `-f file.yaml:override_x`), read from the file system and expanded.
#pragma once
#include <string>
#include <vector>

#include "srt/recipe.hpp"
#include "srt/submission.hpp"
#include "srt/variants.hpp"

namespace srt::helper {

// One RecipeSource per recipe the argument stands for (several for a variants file without a
// selector). The one place commands and the file system decide what a ':' means.
struct OpenedRecipe {
  RecipeRef ref;
  bool variants = false;             // a variants file (top-level base:)
  std::vector<RecipeSource> sources;
};
RecipeRef recipe_ref(const std::string& arg);
OpenedRecipe open_recipe(const std::string& arg, const RecipeOptions& opts);

// Exactly one recipe, loaded, for the commands that run one (plan, submit, run): a variants file
// without a selector, or a selector that picks several, is refused with the selectors to choose.
struct OneRecipe {
  RecipeRef ref;                     // ref.given is SRT_RECIPE
  std::string selector, name;        // the variant's ("" for a plain recipe)
  Recipe recipe;
};
RecipeSource open_one_recipe(const std::string& arg, const RecipeOptions& opts, const std::string& command,
                             RecipeRef* ref = nullptr);
OneRecipe load_one_recipe(const std::string& arg, const RecipeOptions& opts, const std::string& command);

// What a job submitted with the recipe argument `given` carries (srt/submission.hpp), its file
// read here: the one way the plugin, `srt-helper snapshot` and `launch --dry-run` make it.
Submission submission_of(const std::string& given, const Profile& profile, const std::string& package,
                         const std::string& name_one = "");

}  // namespace srt::helper

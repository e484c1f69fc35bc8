#include "srt/recipe_files.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/submission.hpp"

#include <sys/stat.h>

namespace srt::helper {

RecipeRef recipe_ref(const std::string& arg) {
  return split_recipe_ref(arg, [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  });
}

OpenedRecipe open_recipe(const std::string& arg, const RecipeOptions& opts) {
  OpenedRecipe out;
  out.ref = recipe_ref(arg);
  out.sources = open_recipe_text(read_text_file(out.ref.path, opts.read.limits.max_bytes), out.ref, opts);
  out.variants = !out.sources.empty() && !out.sources.front().selector.empty();
  return out;
}

RecipeSource open_one_recipe(const std::string& arg, const RecipeOptions& opts, const std::string& command, RecipeRef* ref) {
  OpenedRecipe opened = open_recipe(arg, opts);
  if (ref) *ref = opened.ref;
  if (opened.sources.size() != 1) refuse_several_variants(opened.ref, opened.sources, command);
  return std::move(opened.sources.front());
}

OneRecipe load_one_recipe(const std::string& arg, const RecipeOptions& opts, const std::string& command) {
  OneRecipe one;
  RecipeSource source = open_one_recipe(arg, opts, command, &one.ref);
  one.selector = source.selector;
  one.name = source.name;
  one.recipe = load_recipe_source(std::move(source), opts);
  return one;
}

Submission submission_of(const std::string& given, const Profile& profile, const std::string& package,
                         const std::string& name_one) {
  const RecipeRef ref = recipe_ref(given);
  return make_submission(given, ref, read_text_file(ref.path, LoadLimits{}.max_bytes), profile, package, name_one);
}

}  // namespace srt::helper

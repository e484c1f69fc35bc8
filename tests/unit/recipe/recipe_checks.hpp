// What the recipe tests ask of a recipe text: loaded with 8 GPUs per node as the profile's
// default, the diagnostics it is refused with, and whether one of them is at a key path and line.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "srt/error.hpp"
#include "srt/recipe.hpp"

namespace recipe_checks {

inline srt::Recipe load8(const std::string& text) {
  srt::RecipeOptions o;
  o.default_gpus_per_node = 8;
  return srt::load_recipe_text(text, "r.yaml", o);
}

inline std::vector<srt::Diagnostic> errors8(const std::string& text) {
  try {
    load8(text);
  } catch (const srt::Error& e) {
    return e.diagnostics();
  }
  return {};
}

// One of `ds` is at `path`, on `line`, and says `text`; every one is shown when none is.
inline bool has_at(const std::vector<srt::Diagnostic>& ds, const std::string& path, const std::string& text, int line) {
  for (const auto& d : ds) UNSCOPED_INFO(d.key_path << " @" << d.mark.line << ": " << d.str());
  return std::any_of(ds.begin(), ds.end(), [&](const srt::Diagnostic& d) {
    return d.key_path == path && d.message.find(text) != std::string::npos && d.mark.line == line;
  });
}

}  // namespace recipe_checks

// Inside the recipe loader: --set/--unset with the variants file's twist.
#pragma once
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt::recipe_detail {

// apply_overrides; with set_as_list every --set VALUE is written as [VALUE], which is how srtctl
// puts a --set into a zip_override_* section (a one-element list broadcasts to every variant).
void apply_overrides(Document& doc, const std::vector<std::string>& set, const std::vector<std::string>& unset,
                     bool set_as_list);

}  // namespace srt::recipe_detail

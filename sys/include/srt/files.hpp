// Recipes, profiles and YAML read from a path: the machine edge's half of core's loaders, which
// take the text. Every read is read_text_file's: regular files only, bounded, never blocking.
#pragma once
#include <cstddef>
#include <string>

#include "srt/document.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt {

// The bytes of a regular file of at most `max_bytes`. Throws srt::Error naming the file when it
// cannot be opened or read, is a directory, FIFO, device or socket, or is larger than the limit.
// O_NONBLOCK on open: a FIFO with no writer is refused, not waited on (the submit path runs it).
std::string read_text_file(const std::string& path, std::size_t max_bytes);

Document load_yaml_file(const std::string& path, const ReadOptions& opts = {});
Recipe load_recipe_file(const std::string& path, const RecipeOptions& opts = {});
Profile load_profile_file(const std::string& path, const ReadOptions& opts = {});

}  // namespace srt

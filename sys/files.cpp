// Core's text loaders fed from files: the path is only the name in messages once it is read.
#include "srt/files.hpp"

namespace srt {

Document load_yaml_file(const std::string& path, const ReadOptions& opts) {
  return parse_yaml(read_text_file(path, opts.limits.max_bytes), path, opts);
}

Recipe load_recipe_file(const std::string& path, const RecipeOptions& opts) {
  return load_recipe_text(read_text_file(path, opts.read.limits.max_bytes), path, opts);
}

Profile load_profile_file(const std::string& path, const ReadOptions& opts) {
  return load_profile_text(read_text_file(path, opts.limits.max_bytes), path, opts);
}

}  // namespace srt

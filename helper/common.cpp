#include "common.hpp"
#include "commands.hpp"
#include "srt/error.hpp"

#include <cstdio>

namespace srt::helper {

void add_recipe_flags(CLI::App* cmd, RecipeFlags& flags) {
  cmd->add_option("--profile", flags.profile, "cluster profile (default: $SRTSLURM_CONFIG, then " SRT_DEFAULT_PROFILE ")");
  cmd->add_flag("--strict", flags.strict, "duplicate keys are errors, not warnings");
  cmd->add_flag("--current-schema", flags.current_schema,
                "refuse recipes without schema: 2 and v1-only keys (what srtctl after v2.2.1 requires)");
  cmd->add_option("--set", flags.set, "override key.path=VALUE (VALUE is YAML; [N] indexes a list)")->take_all();
  cmd->add_option("--unset", flags.unset, "remove key.path")->take_all();
}

Profile load_profile(const std::string& explicit_path, const ReadOptions& read) {
  const std::string path = find_profile_path(explicit_path, SRT_DEFAULT_PROFILE);
  if (path.empty()) return default_profile();
  return load_profile_file(path, read);
}

RecipeOptions recipe_options(const RecipeFlags& flags, const Profile& profile) {
  RecipeOptions opts;
  opts.read.strict = flags.strict;
  opts.read.current_schema = flags.current_schema;
  opts.set = flags.set;
  opts.unset = flags.unset;
  opts.default_gpus_per_node = profile.gpus_per_node;
  return opts;
}

void print_warnings(const std::vector<Diagnostic>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.str().c_str());
}

void print_unsupported_note(const std::string& path, const Recipe& recipe) {
  if (recipe.unsupported_keys.empty()) return;
  std::string keys;
  for (const auto& k : recipe.unsupported_keys) keys += (keys.empty() ? "" : ", ") + k;
  std::fprintf(stderr, "note: %s: srtctl knows these, srt-spank cannot launch them yet: %s\n", path.c_str(), keys.c_str());
}

bool load_profile_or_usage_error(const std::string& explicit_path, Profile& out) {
  try {
    out = load_profile(explicit_path);
    return true;
  } catch (const Error& e) {
    std::fprintf(stderr, "srt-helper: cluster profile: %s\n", e.what());
    exit_code = 2;
    return false;
  }
}

}  // namespace srt::helper

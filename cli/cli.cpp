#include "srt/cli.hpp"
#include "srt/error.hpp"

#include <algorithm>
#include <cstdio>

namespace srt::helper {

int exit_code = 0;

void add_recipe_flags(CLI::App* cmd, RecipeFlags& flags) {
  cmd->add_option("--profile", flags.profile, "cluster profile (default: $SRTSLURM_CONFIG, then " SRT_DEFAULT_PROFILE ")");
  cmd->add_flag("--strict", flags.strict, "duplicate keys are errors, not warnings");
  cmd->add_flag("--current-schema", flags.current_schema,
                "refuse recipes without schema: 2 and v1-only keys (what srtctl after v2.2.1 requires)");
  // One value per --set/--unset (repeat the option for more): a list-taking option would swallow
  // the recipe argument that follows it now that -f may name the recipe instead.
  cmd->add_option("--set", flags.set, "override key.path=VALUE (VALUE is YAML; [N] indexes a list; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--unset", flags.unset, "remove key.path (repeatable)")->allow_extra_args(false);
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

std::map<std::string, std::string> warn_preview_addresses(DataAddresses found) {
  for (auto& d : found.problems) {
    d.hint = "planned with the node name here; a job on this node would fail: " + d.hint;
    std::fprintf(stderr, "warning: %s\n", d.str().c_str());
  }
  return std::move(found.by_node);
}

void print_warnings_once(const std::vector<Diagnostic>& warnings, std::vector<std::string>& shown) {
  for (const auto& w : warnings) {
    std::string text = w.str();
    if (std::find(shown.begin(), shown.end(), text) != shown.end()) continue;
    std::fprintf(stderr, "warning: %s\n", text.c_str());
    shown.push_back(std::move(text));
  }
}

void print_unsupported_note(const std::string& path, const Recipe& recipe) {
  if (recipe.unsupported_keys.empty()) return;
  std::string keys;
  for (const auto& k : recipe.unsupported_keys) keys += (keys.empty() ? "" : ", ") + k;
  std::fprintf(stderr, "note: %s: srtctl knows these, srt-spank cannot launch them yet: %s\n", path.c_str(), keys.c_str());
}

std::vector<std::string> recipe_arguments(const std::vector<std::string>& positional, const std::vector<std::string>& dash_f) {
  std::vector<std::string> out = positional;
  out.insert(out.end(), dash_f.begin(), dash_f.end());
  if (out.empty()) throw CLI::RequiredError("RECIPE (or -f FILE[:SELECTOR])");
  return out;
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

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace srt::helper

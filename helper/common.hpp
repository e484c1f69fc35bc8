// Small pieces several subcommands share: the cluster profile (--profile or the default) and the
// recipe options srtctl users know (--set, --unset, --strict).
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt::helper {

struct RecipeFlags {
  std::string profile;               // --profile FILE
  bool strict = false;               // --strict: duplicate keys are errors
  bool current_schema = false;       // --current-schema: only `schema: 2`, no v1-only keys
  std::vector<std::string> set;      // --set key.path=VALUE
  std::vector<std::string> unset;    // --unset key.path
};

// Registers --profile, --strict, --current-schema, --set, --unset on `cmd`.
void add_recipe_flags(CLI::App* cmd, RecipeFlags& flags);

// The profile named by --profile, else $SRTSLURM_CONFIG, else the installed default, else the
// built-in default. Throws srt::Error when the named profile is bad.
Profile load_profile(const std::string& explicit_path, const ReadOptions& read = {});

// load_profile for commands whose exit code 2 means "the environment is wrong": on error prints
// "srt-helper: cluster profile: ..." to stderr, sets exit_code = 2 and returns false.
bool load_profile_or_usage_error(const std::string& explicit_path, Profile& out);

// Recipe options for `flags`, with the profile's gpus_per_node for the rules that need it.
RecipeOptions recipe_options(const RecipeFlags& flags, const Profile& profile);

// Warnings and notes go to stderr, one per line, prefixed "warning: ".
void print_warnings(const std::vector<Diagnostic>& warnings);

// "note: PATH: srtctl knows these, srt-spank cannot launch them yet: ..." on stderr, when the
// recipe has such keys.
void print_unsupported_note(const std::string& path, const Recipe& recipe);

}  // namespace srt::helper

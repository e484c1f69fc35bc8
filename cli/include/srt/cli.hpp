// Small pieces several subcommands share on the command line: the cluster profile (--profile or
// the default) and the recipe options srtctl users know (--set, --unset, --strict).
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "srt/data_network.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/recipe_files.hpp"
#include "srt/this_host.hpp"

namespace srt::helper {

// The process exit code the subcommands' callbacks set: 0 success, 1 the thing checked is bad
// (invalid recipe, failed job), 2 usage or environment error. Defined in cli.cpp: each binary
// that links srt_cli has its own (srt-helper's, and the job-step module's, whose version script
// keeps it local; srt-helper reads the module's through the pointer its entry point returns).
extern int exit_code;

struct RecipeFlags {
  std::string profile;               // --profile FILE
  bool strict = false;               // --strict: duplicate keys are errors
  bool current_schema = false;       // --current-schema: only `schema: 2`, no v1-only keys
  std::vector<std::string> set;      // --set key.path=VALUE
  std::vector<std::string> unset;    // --unset key.path
};

// Registers --profile, --strict, --current-schema, --set, --unset on `cmd`.
void add_recipe_flags(CLI::App* cmd, RecipeFlags& flags);

// load_profile for commands whose exit code 2 means "the environment is wrong": on error prints
// "srt-helper: cluster profile: ..." to stderr, sets exit_code = 2 and returns false.
bool load_profile_or_usage_error(const std::string& explicit_path, Profile& out);

// Recipe options for `flags`, with the profile's gpus_per_node for the rules that need it.
RecipeOptions recipe_options(const RecipeFlags& flags, const Profile& profile);

// The recipe arguments: the positional ones, then each -f (srtctl's spelling). Throws
// CLI::RequiredError when there are none, so it is a usage error like a missing positional.
std::vector<std::string> recipe_arguments(const std::vector<std::string>& positional, const std::vector<std::string>& dash_f);

// Warnings and notes go to stderr, one per line, prefixed "warning: ".
void print_warnings(const std::vector<Diagnostic>& warnings);
// A preview away from the cluster (`plan`, `launch --dry-run`; slurmapi::preview_addresses): a
// node the data-network rules give no address (srt/data_network.hpp) is planned by its name,
// and each such node is a warning saying that a job would fail there. Returns the addresses.
std::map<std::string, std::string> warn_preview_addresses(DataAddresses found);

// print_warnings, skipping those already in `shown` (and adding the rest): a variants file's
// warnings are every variant's, and are printed once.
void print_warnings_once(const std::vector<Diagnostic>& warnings, std::vector<std::string>& shown);

// `s` without trailing spaces and newlines (a command's or a sysfs file's output).
std::string trim_end(std::string s);

// "note: PATH: srtctl knows these, srt-spank cannot launch them yet: ..." on stderr, when the
// recipe has such keys.
void print_unsupported_note(const std::string& path, const Recipe& recipe);

}  // namespace srt::helper

// Small pieces several subcommands share: the cluster profile (--profile or the default) and the
// recipe options srtctl users know (--set, --unset, --strict).
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "srt/data_network.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/variants.hpp"

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

// srt::choose_profile_path with $SRTSLURM_CONFIG and whether `fallback` exists on this host.
std::string find_profile_path(const std::string& explicit_path, const std::string& fallback = SRT_DEFAULT_PROFILE);
// The profile named by --profile, else $SRTSLURM_CONFIG, else the installed default, else the
// built-in default. Throws srt::Error when the named profile is bad.
Profile load_profile(const std::string& explicit_path, const ReadOptions& read = {});

// load_profile for commands whose exit code 2 means "the environment is wrong": on error prints
// "srt-helper: cluster profile: ..." to stderr, sets exit_code = 2 and returns false.
bool load_profile_or_usage_error(const std::string& explicit_path, Profile& out);

// Recipe options for `flags`, with the profile's gpus_per_node for the rules that need it.
RecipeOptions recipe_options(const RecipeFlags& flags, const Profile& profile);

// A recipe argument, FILE or FILE:SELECTOR (srtctl's `-f file.yaml:override_x`), read and
// expanded: one RecipeSource per recipe it stands for (several for a variants file without a
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

// The node a per-node task runs on, as Slurm names it (the Plan's names are Slurm's): `given`,
// else $SLURMD_NODENAME, else the host name up to its first dot, which is the node name on most
// clusters. `known`: the name is one of the first two, so certainly a compute node's.
struct NodeName {
  std::string name;
  bool known = false;
};
NodeName this_node(const std::string& given);
std::string this_node_name(const std::string& given);  // this_node(given).name

// The path srt-helper runs from (/proc/self/exe) and its directory, "" when unknown: in a build
// tree, srt-exec and srt-helper-jobstep.so lie beside it.
std::string executable_path();
std::string executable_dir();

// "note: PATH: srtctl knows these, srt-spank cannot launch them yet: ..." on stderr, when the
// recipe has such keys.
void print_unsupported_note(const std::string& path, const Recipe& recipe);

}  // namespace srt::helper

// srt-helper validate: is this recipe one srt-spank can run, and on how many nodes?
// Exit 0 all valid, 1 any invalid, 2 usage or a bad profile.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "srt/plan.hpp"

namespace srt::helper {
namespace {

struct ValidateArgs {
  RecipeFlags flags;
  std::vector<std::string> recipes;
};

// Returns true when `path` is valid; prints its verdict.
bool validate_one(const std::string& path, const ValidateArgs& args, const Profile& profile) {
  try {
    Recipe recipe = load_recipe_file(path, recipe_options(args.flags, profile));
    const int nodes = node_demand(recipe, profile);
    // What reading found comes before the verdict (as an invalid recipe's problems come before
    // "invalid"); the note qualifies "ok" (valid, not launchable yet), so it follows it.
    print_warnings(recipe.source.warnings);
    std::printf("%s: ok (%d node%s)\n", path.c_str(), nodes, nodes == 1 ? "" : "s");
    print_unsupported_note(path, recipe);
    return true;
  } catch (const Error& e) {
    for (const auto& d : e.diagnostics()) {
      Diagnostic shown = d;
      if (shown.file.empty()) shown.file = path;  // node_demand's errors carry no position
      std::printf("%s\n", shown.str().c_str());
    }
    std::printf("%s: invalid (%zu problem%s)\n", path.c_str(), e.diagnostics().size(),
                e.diagnostics().size() == 1 ? "" : "s");
    return false;
  }
}

}  // namespace

void add_validate(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "check recipes against srtctl's schema and rules and the cluster profile");
  add_recipe_flags(cmd, args->flags);
  cmd->add_option("RECIPE", args->recipes, "recipe files")->required();
  cmd->callback([args] {
    Profile profile;
    if (!load_profile_or_usage_error(args->flags.profile, profile)) return;
    print_warnings(profile.source.warnings);
    bool all_ok = true;
    for (const auto& path : args->recipes) all_ok = validate_one(path, *args, profile) && all_ok;
    exit_code = all_ok ? 0 : 1;
  });
}

}  // namespace srt::helper

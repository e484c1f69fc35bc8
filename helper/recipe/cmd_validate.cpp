// srt-helper validate: is this recipe one srt-spank can run, and on how many nodes?
// Exit 0 all valid, 1 any invalid, 2 usage or a bad profile.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/plan.hpp"
#include "srt/telemetry.hpp"

namespace srt::helper {
namespace {

struct ValidateArgs {
  RecipeFlags flags;
  std::vector<std::string> recipes;
  std::vector<std::string> dash_f;  // -f FILE[:SELECTOR], srtctl's spelling
};

void print_problems(const std::string& file, const std::string& label, const Error& e) {
  for (const auto& d : e.diagnostics()) {
    Diagnostic shown = d;
    if (shown.file.empty()) shown.file = file;  // node_demand's errors carry no position
    std::printf("%s\n", shown.str().c_str());
  }
  std::printf("%s: invalid (%zu problem%s)\n", label.c_str(), e.diagnostics().size(),
              e.diagnostics().size() == 1 ? "" : "s");
}

// Returns true when every recipe `arg` stands for is valid; prints one verdict per recipe (per
// variant of a variants file, as srtctl validates every variant, naming each FILE:SELECTOR).
bool validate_one(const std::string& arg, const ValidateArgs& args, const Profile& profile) {
  const RecipeOptions opts = recipe_options(args.flags, profile);
  OpenedRecipe opened;
  try {
    opened = open_recipe(arg, opts);
  } catch (const Error& e) {
    print_problems(arg, arg, e);
    return false;
  }
  bool all_ok = true;
  std::vector<std::string> shown_warnings;  // a file's warnings once, not once per variant
  for (auto& source : opened.sources) {
    // "FILE:override_x (its name)": the selector to run it with, and the name its job gets.
    const std::string label = source.given + (opened.variants && !source.name.empty() ? " (" + source.name + ")" : "");
    const std::string given = source.given;
    try {
      Recipe recipe = load_recipe_source(std::move(source), opts);
      const int nodes = node_demand(recipe, profile);
      if (const std::string why = missing_gpu_exporter(recipe.telemetry, profile.default_gpu_exporter); !why.empty())
        throw Error(recipe.source.at("telemetry.enabled", why, kMissingGpuExporterFix));
      // What reading found comes before the verdict (as an invalid recipe's problems come before
      // "invalid"); the note qualifies "ok" (valid, not launchable yet), so it follows it.
      print_warnings_once(recipe.source.warnings, shown_warnings);
      std::printf("%s: ok (%d node%s)\n", label.c_str(), nodes, nodes == 1 ? "" : "s");
      print_unsupported_note(given, recipe);
    } catch (const Error& e) {
      print_problems(given, label, e);
      all_ok = false;
    }
  }
  return all_ok;
}

}  // namespace

void add_validate(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "check recipes against srtctl's schema and rules and the cluster profile");
  add_recipe_flags(cmd, args->flags);
  cmd->add_option("RECIPE", args->recipes, "recipe files, FILE or FILE:SELECTOR for a variants file");
  cmd->add_option("-f", args->dash_f, "a recipe FILE[:SELECTOR] (srtctl's spelling; repeatable)")->allow_extra_args(false);
  cmd->callback([args] {
    const std::vector<std::string> recipes = recipe_arguments(args->recipes, args->dash_f);
    Profile profile;
    if (!load_profile_or_usage_error(args->flags.profile, profile)) return;
    print_warnings(profile.source.warnings);
    bool all_ok = true;
    for (const auto& path : recipes) all_ok = validate_one(path, *args, profile) && all_ok;
    exit_code = all_ok ? 0 : 1;
  });
}

}  // namespace srt::helper

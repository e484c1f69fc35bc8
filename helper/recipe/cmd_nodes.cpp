// srt-helper nodes: how many nodes the recipe needs (sbatch -N), exactly as srtctl counts them.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/plan.hpp"

namespace srt::helper {

void add_nodes(CLI::App& app) {
  struct Args {
    RecipeFlags flags;
    std::string recipe;
    std::string dash_f;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("nodes", "print the number of nodes a recipe needs");
  add_recipe_flags(cmd, args->flags);
  cmd->add_option("RECIPE", args->recipe, "recipe file, FILE:SELECTOR for one variant of a variants file");
  cmd->add_option("-f", args->dash_f, "the recipe FILE[:SELECTOR] (srtctl's spelling)");
  cmd->callback([args] {
    std::vector<std::string> given;
    if (!args->recipe.empty()) given.push_back(args->recipe);
    if (!args->dash_f.empty()) given.push_back(args->dash_f);
    if (given.size() != 1) throw CLI::ValidationError("RECIPE", "give one recipe, as RECIPE or -f RECIPE");
    Profile profile;
    if (!load_profile_or_usage_error(args->flags.profile, profile)) return;
    try {
      const RecipeOptions opts = recipe_options(args->flags, profile);
      OpenedRecipe opened = open_recipe(given.front(), opts);
      // One recipe: the count alone on the last line (what `sbatch -N $(srt-helper nodes ...)`
      // reads). Several (a variants file without a selector, or a group): "SELECTOR N" each.
      const bool one = opened.sources.size() == 1 && !opened.ref.selector.empty();
      exit_code = 0;
      std::vector<std::string> shown_warnings;  // a file's warnings once, not once per variant
      for (auto& source : opened.sources) {
        const std::string selector = source.selector;
        try {
          Recipe recipe = load_recipe_source(std::move(source), opts);
          print_warnings_once(recipe.source.warnings, shown_warnings);
          const int n = node_demand(recipe, profile);
          if (!opened.variants || one) std::printf("%d\n", n);
          else std::printf("%s %d\n", selector.c_str(), n);
        } catch (const Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          exit_code = 1;
        }
      }
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      exit_code = 1;
    }
  });
}

}  // namespace srt::helper

// srt-helper nodes: how many nodes the recipe needs (sbatch -N), exactly as srtctl counts them.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "srt/plan.hpp"

namespace srt::helper {

void add_nodes(CLI::App& app) {
  struct Args {
    RecipeFlags flags;
    std::string recipe;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("nodes", "print the number of nodes a recipe needs");
  add_recipe_flags(cmd, args->flags);
  cmd->add_option("RECIPE", args->recipe, "recipe file")->required();
  cmd->callback([args] {
    Profile profile;
    if (!load_profile_or_usage_error(args->flags.profile, profile)) return;
    try {
      Recipe recipe = load_recipe_file(args->recipe, recipe_options(args->flags, profile));
      print_warnings(recipe.source.warnings);
      std::printf("%d\n", node_demand(recipe, profile));
      exit_code = 0;
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      exit_code = 1;
    }
  });
}

}  // namespace srt::helper

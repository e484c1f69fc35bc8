// srt-helper schema: the recipe format as JSON Schema (draft 2020-12), for editors and CI.
#include <cstdio>

#include "commands.hpp"
#include "srt/recipe.hpp"

namespace srt::helper {

void add_schema(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("schema", "print the JSON Schema of the recipe format");
  static std::string layout = "v1";
  cmd->add_option("--layout", layout, "v1 (default) or v2 (srt-slurm 2.x, schema: 2)")->check(CLI::IsMember({"v1", "v2"}));
  cmd->callback([] {
    std::printf("%s\n", recipe_json_schema(layout == "v2" ? 2 : 1).dump(2).c_str());
    exit_code = 0;
  });
}

}  // namespace srt::helper

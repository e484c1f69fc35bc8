// srt-helper schema: the recipe format, or the cluster profile's, as JSON Schema (draft 2020-12),
// for editors and CI.
#include <cstdio>

#include "commands.hpp"
#include "srt/recipe.hpp"

namespace srt::helper {

void add_schema(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("schema", "print the JSON Schema of the recipe format (or of the cluster profile)");
  static std::string layout = "v1";
  static bool profile = false;
  cmd->add_option("--layout", layout, "v1 (default) or v2 (srt-slurm 2.x, schema: 2)")->check(CLI::IsMember({"v1", "v2"}));
  cmd->add_flag("--profile", profile, "the cluster profile's keys (srtctl's srtslurm.yaml and srt-spank's own) instead");
  cmd->callback([] {
    const Json s = profile ? profile_json_schema() : recipe_json_schema(layout == "v2" ? 2 : 1);
    std::printf("%s\n", s.dump(2).c_str());
    exit_code = 0;
  });
}

}  // namespace srt::helper

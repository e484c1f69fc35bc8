// srt-helper snapshot: the recipe snapshot the plugin attaches at submit (SLURM_SPANK_SRT_SNAPSHOT,
// srt/snapshot.hpp), made from a recipe file exactly as the submit side makes it, or a job's shown
// as JSON (--show). For admins asking what a job carried, and for tests that run the launcher
// without the plugin in front of it.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/files.hpp"
#include "srt/job_plan.hpp"
#include "srt/snapshot.hpp"
#include "srt/variants.hpp"

namespace srt::helper {

namespace {

constexpr const char* kSnapshotVariable = SRT_SNAPSHOT_JOB_ENV;

// What a snapshot holds, as JSON (the documents as JSON text: .nan and .inf show as null).
void show(const std::string& encoded) {
  const Snapshot s = decode_snapshot(encoded);
  Json out = {{"format", kSnapshotFormat}, {"package", s.package}, {"recipe_path", s.recipe_path}};
  if (!s.variant_selector.empty()) out["variant"] = {{"selector", s.variant_selector}, {"name", s.variant_name}};
  out["profile_digest"] = s.profile_digest;
  out["recipe"] = s.recipe;
  out["profile"] = s.profile;
  out["recipe_text_bytes"] = s.recipe_text.size();
  std::printf("%s\n", out.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
}

}  // namespace

void add_snapshot(CLI::App& app) {
  struct Args {
    std::string profile;
    std::string recipe;
    bool show = false;
    std::string encoded;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "snapshot", "print the recipe snapshot sbatch --srt-recipe attaches (or, with --show, what one holds)");
  cmd->add_option("RECIPE", args->recipe, "recipe file, FILE:SELECTOR for one variant of a variants file");
  cmd->add_option("--profile", args->profile, "cluster profile (default: $SRTSLURM_CONFIG, then /etc/srt/cluster.yaml)");
  cmd->add_flag("--show", args->show, "decode a snapshot (--snapshot, else $" + std::string(kSnapshotVariable) + ") as JSON");
  cmd->add_option("--snapshot", args->encoded, "the snapshot to --show (default: $" + std::string(kSnapshotVariable) + ")");
  cmd->callback([args] {
    if (args->show) {
      if (!args->recipe.empty()) throw CLI::ValidationError("RECIPE", "--show reads a snapshot, not a recipe");
      std::string encoded = args->encoded;
      if (encoded.empty())
        if (const char* v = std::getenv(kSnapshotVariable)) encoded = v;
      if (encoded.empty()) throw CLI::ValidationError("--show", std::string("no --snapshot and no $") + kSnapshotVariable);
      try {
        show(encoded);
        exit_code = 0;
      } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        exit_code = 1;
      }
      return;
    }
    if (args->recipe.empty()) throw CLI::RequiredError("RECIPE");
    Profile profile;
    if (!load_profile_or_usage_error(args->profile, profile)) return;
    try {
      // As the plugin's submit side: the profile's options only, refused when it would be refused there.
      std::printf("%s\n", submission_of(args->recipe, profile, SRT_VERSION).encoded.c_str());
      exit_code = 0;
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      exit_code = 1;
    }
  });
}

}  // namespace srt::helper

// Submit side (sbatch, salloc, srun; as the user): validate the recipe and the profile, plan it
// once on stand-in node names so placement and port errors show before anything is queued, then
// carry the validated bytes into the job. The nodes never open a user-named path.
#include <cstdlib>
#include <string>

#include "impl.hpp"
#include "srt/contract.hpp"
#include "srt/document.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/recipe_files.hpp"
#include "srt/snapshot.hpp"

namespace srt::spank_impl {

namespace {

bool is_the_jobs_recipe(const char* snapshot, const char* recipe) {
  try {
    return decode_snapshot(snapshot).recipe_path == recipe;
  } catch (const Error&) {
    return false;  // not a snapshot this plugin wrote: the recipe given is checked instead
  }
}

int submit_side(spank_t sp, const srt_loader_state& state) {
  try {
    if (state.step) check_step_name(state.step);
    // Inside an srt job (a nested srun or sbatch), Slurm re-delivers the job's --srt-recipe, whose
    // path may not even exist on this node: the job's snapshot already carries that recipe. A
    // recipe other than the job's is validated and snapshotted as any submit's (docs/security.md).
    if (const char* job = std::getenv(SRT_SNAPSHOT_JOB_ENV); job && std::getenv("SLURM_JOB_ID"))
      if (!state.recipe || is_the_jobs_recipe(job, state.recipe)) return 0;
    if (!state.recipe)
      fail("--srt-step only works inside a job started with --srt-recipe",
           "submit the job with --srt-recipe=FILE first");

    const PluginConfig config = parse_config(state);
    const std::string profile_path = plugin_profile_path(config);
    const Profile profile = profile_path.empty() ? default_profile() : load_profile_file(profile_path);
    // --srt-recipe=FILE:SELECTOR names one variant of a variants file (srtctl's -f spelling).
    const std::string snapshot = helper::submission_of(state.recipe, profile, kPackageVersion, "--srt-recipe=").encoded;
    if (spank_context() == S_CTX_ALLOCATOR) {
      spank_err_t rc = spank_job_control_setenv(sp, SRT_SNAPSHOT_NAME, snapshot.c_str(), 1);
      if (rc != ESPANK_SUCCESS)
        fail(std::string("cannot attach the recipe to the job: ") + spank_strerror(rc));
    }
    // Also in our own environment: a standalone srun passes it to its steps this way (job control
    // variables do not reach them), and SLURM_-prefixed names survive --export=NONE.
    if (setenv(SRT_SNAPSHOT_JOB_ENV, snapshot.c_str(), 1) != 0) fail("cannot set " SRT_SNAPSHOT_JOB_ENV);
    return 0;
  } catch (const Error& e) {
    error_lines(e.what());
    return -1;
  }
}

}  // namespace

int submit_dispatch(const std::string& callback, spank_t sp, const srt_loader_state& state) {
  const spank_context_t ctx = spank_context();
  if (callback == "init_post_opt" && (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR)) return submit_side(sp, state);
  return 0;
}

}  // namespace srt::spank_impl

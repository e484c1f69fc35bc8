#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "srt/cli.hpp"
#include "srt/process.hpp"
#include "srt/safe_dir.hpp"
#include "run.hpp"
#include "srt/error.hpp"
#include "srt/job_plan.hpp"
#include "srt/workspace.hpp"

namespace srt::run {

namespace {

// With --set/--unset the effective recipe goes to a file of its own, so the plugin validates and
// snapshots exactly what runs. Not beside the original: in a shared recipe directory anyone could
// plant <recipe>.srt-effective.yaml as a symlink, or swap the file before sbatch reads it
// (docs/security.md "Files other users plant"). It lives in a private directory (mkdtemp, 0700)
// that goes once sbatch has returned: the plugin snapshots the recipe at submit and nothing reads
// the path afterwards.
// JSON is YAML, and PyYAML reads it the same way. `root` is the document as written (variant
// expanded, overrides applied), before a schema-2 recipe is normalized: Recipe::source, its v1
// rendering, has no place for the keys only schema 2 knows (roles.<role>.restart) and would drop them.
std::string write_effective_recipe(const helper::TempDir& tmp, const Json& root, const std::string& original,
                                   const std::string& given) {
  const std::string name = original.substr(original.rfind('/') + 1);
  tmp.dir().write_file(name, "# " + given + " as submitted (srt-helper's --set/--unset, INFMAX_WORKSPACE, a runner's srtslurm.yaml)\n" + root.dump(2) + "\n", 0600);
  return tmp.dir().path_of(name);
}

// $INFMAX_WORKSPACE, when set, mounted at /infmax-workspace (srt/workspace.hpp): the submitted
// recipe gets it as a container_mounts entry, so the plugin plans and checks it on every node as
// any recipe mount. Its value when it was added, else "".
std::string mount_workspace(Json& root, const Profile& profile) {
  const char* env = std::getenv("INFMAX_WORKSPACE");
  const std::string given = env ? env : "";
  const WorkspaceMount w = workspace_mount(root, given, profile);
  if (!w.problem.empty()) fail(w.problem, "set it to the run's InferenceX workspace, or unset it");
  if (!w.note.empty()) std::fprintf(stderr, "note: %s\n", w.note.c_str());
  if (!w.mount) return "";
  std::error_code ec;
  if (!std::filesystem::is_directory(given, ec))
    fail("INFMAX_WORKSPACE=" + given + ": not a directory", "set it to the run's InferenceX workspace, or unset it");
  add_workspace_mount(root, given);
  return given;
}

}  // namespace

std::string find_job_script() {
  const std::string beside = helper::executable_dir() + "/srt-job";
  if (access(beside.c_str(), X_OK) == 0) return beside;
  return "srt-job";  // sbatch looks it up on PATH
}

Submitted submit(const SubmitRequest& req) {
  Submitted s;
  s.profile = helper::load_profile(req.profile);
  RecipeOptions ro;
  ro.set = req.set;
  ro.unset = req.unset;
  ro.default_gpus_per_node = s.profile.gpus_per_node;
  if (req.recipe.empty() == req.dash_f.empty())
    throw CLI::ValidationError("recipe", "give one recipe, as RECIPE or -f RECIPE");
  const std::string given = req.recipe.empty() ? req.dash_f : req.recipe;
  // A variants file needs its selector: one job per submit, as `srtctl apply -f FILE:SELECTOR`.
  RecipeRef ref;
  RecipeSource source = helper::open_one_recipe(given, ro, "a job", &ref);
  const std::string workspace = mount_workspace(source.doc.root, s.profile);
  std::vector<std::string> aliased;
  if (req.runner) aliased = apply_runner_config(source.doc.root, *req.runner);
  for (const auto& line : aliased) std::fprintf(stderr, "%s: %s\n", req.runner->file.c_str(), line.c_str());
  const bool overridden = !req.set.empty() || !req.unset.empty() || !workspace.empty() || !aliased.empty();
  const Json written = overridden ? source.doc.root : Json();  // copied only when it is written out
  s.recipe = load_recipe_source(std::move(source), ro);
  // What the plugin's submit side plans (srt/submission.hpp): a recipe it would refuse (a
  // setup_script the profile cannot run, GPUs that do not fit) is refused here, before sbatch.
  (void)plan_submission(s.recipe, given, s.profile);
  std::optional<helper::TempDir> tmp;
  if (!overridden) {
    s.recipe_file = given;  // FILE:SELECTOR as given: the plugin expands the same variant
  } else {
    // The expanded variant with the overrides applied: a plain recipe, no selector needed.
    tmp.emplace("srt-effective.");
    s.recipe_file = write_effective_recipe(*tmp, written, ref.path, given);
  }

  SubmitOptions o;
  o.recipe_path = s.recipe_file;
  o.job_script = find_job_script();
  if (const char* runner = std::getenv("RUNNER_NAME")) o.job_name_override = runner;
  const std::string root = s.profile.output_dir.empty() ? s.profile.results_root : s.profile.output_dir;
  // slurmstepd creates sbatch's log by path, following a symlink: only where nobody else can
  // plant one. Elsewhere sbatch's default (slurm-<job>.out here) holds it.
  if (!root.empty() && helper::only_this_user_writes(root)) o.output = root + "/sweep_%j.log";
  if (!req.output.empty()) o.output = req.output;  // apply: the job's own sweep log, made safely before release
  o.extra = req.sbatch_extra;
  // The launcher inside the job must read the same profile the plugin checked the job against.
  const std::string profile_path = helper::find_profile_path(req.profile);
  if (!profile_path.empty()) {
    char resolved[PATH_MAX];
    o.script_args = {"--profile", realpath(profile_path.c_str(), resolved) ? resolved : profile_path};
  }
  // A job option, not a recipe key: a recipe must stay loadable by srtctl (docs/running-recipes.md
  // "Stalls").
  if (req.stall_timeout_seconds >= 0)
    o.script_args.insert(o.script_args.end(), {"--stall-timeout", std::to_string(req.stall_timeout_seconds)});
  if (!req.stall_policy.empty()) o.script_args.insert(o.script_args.end(), {"--stall-policy", req.stall_policy});
  if (!req.points.empty()) {
    std::string list;
    for (int c : req.points) list += (list.empty() ? "" : ",") + std::to_string(c);
    o.script_args.insert(o.script_args.end(), {"--points", list});
  }
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  const auto args = sbatch_arguments(s.recipe, s.profile, o);
  argv.insert(argv.end(), args.begin(), args.end());

  int status = 0;
  const std::string out = sys::run_capture(argv, 120, &status);
  std::string first = out.substr(0, out.find_first_of(";\n"));
  if (status != 0 || first.empty() || first.find_first_not_of("0123456789") != std::string::npos)
    fail("sbatch refused the job (exit " + std::to_string(status) + ")" + (out.empty() ? "" : ": " + out),
         "its messages above say why");
  s.job_id = std::stoull(first);
  if (!workspace.empty())
    std::fprintf(stderr, "INFMAX_WORKSPACE: %s mounted at %s in every container\n", workspace.c_str(), kWorkspaceInContainer);
  if (!o.output.empty()) {
    s.output_file = o.output;
    for (std::size_t at; (at = s.output_file.find("%j")) != std::string::npos;) s.output_file.replace(at, 2, first);
  }
  return s;
}

}  // namespace srt::run

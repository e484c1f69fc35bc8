// The launcher's inputs: the same bytes, profile, node list and job id the plugin used, so the
// Plan computed here is the Plan every slurmstepd computed (checked by digest).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "srt/cli.hpp"
#include "launch.hpp"
#include "slurmapi/addresses.hpp"
#include "slurmapi/hostlist.hpp"
#include "srt/contract.hpp"
#include "srt/error.hpp"
#include "srt/job_plan.hpp"
#include "srt/mount_policy.hpp"
#include "srt/runtime_trust.hpp"
#include "srt/snapshot.hpp"
#include "srt/files.hpp"

#ifndef SRT_LIBEXECDIR
#define SRT_LIBEXECDIR "/usr/libexec"
#endif

namespace srt::launch {
namespace {

// The job-control variable the plugin attached at submit.
constexpr const char* kSnapshotEnv = SRT_SNAPSHOT_JOB_ENV;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A job directory someone else made (job ids are sequential and squeue shows them) is refused:
// whatever it holds, symlinks into the user's home included, would be written through.
const helper::SafeDir::Purpose kJobDirPurpose{
    "job directory",
    "remove it or choose another results_root (or output_dir) in the cluster profile; in a shared results_root "
    "only its owner or an administrator can remove it"};

std::shared_ptr<const helper::SafeDir> own_dir(const std::string& path, const helper::SafeDir::Purpose& purpose) {
  std::optional<helper::SafeDir> dir = helper::SafeDir::open(path, purpose, true);
  if (!dir) fail("cannot create the " + purpose.what + " " + path);
  return std::make_shared<const helper::SafeDir>(std::move(*dir));
}

std::shared_ptr<const helper::SafeDir> own_sub(const helper::SafeDir& parent, const std::string& name) {
  std::optional<helper::SafeDir> dir = parent.sub(name, true);
  if (!dir) fail("cannot create " + parent.path_of(name));
  return std::make_shared<const helper::SafeDir>(std::move(*dir));
}

// srt-exec lives beside srt-helper in a build tree and in the libexec dir when installed.
std::string find_srt_exec(const std::string& given) {
  if (!given.empty()) return given;
  if (const std::string dir = helper::executable_dir(); !dir.empty()) {
    for (const std::string& candidate : {dir + "/srt-exec", dir + "/exec/srt-exec"})
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::string(SRT_LIBEXECDIR) + "/srt-exec";
}

std::string keys_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace

Job load_job(const Options& o) {
  Job job;
  job.profile = helper::load_profile(o.profile);
  if (const std::string refused = sys::runtime_refusal_here(job.profile); !refused.empty())
    fail("this cluster's profile cannot run jobs: " + refused, "an administrator fixes the profile (docs/INSTALL.md \"Container runtimes\")");
  const bool in_job = !env("SLURM_JOB_ID").empty() && !o.dry_run;

  JobFacts facts;
  Snapshot snap;
  if (in_job || (o.dry_run && o.recipe.empty())) {
    const std::string encoded = env(kSnapshotEnv);
    if (encoded.empty())
      fail(std::string("no recipe snapshot in this job (") + kSnapshotEnv + " is not set)",
           "submit with: sbatch --srt-recipe=RECIPE -N<nodes> srt-job (spank_srt.so must be in plugstack.conf)");
    snap = decode_snapshot(encoded);
    check_snapshot_package(snap, SRT_VERSION, "the launcher (srt-helper " SRT_VERSION ")");
    if (snap.profile_digest != job.profile.digest)
      fail("the cluster profile srt-helper read (" + helper::find_profile_path(o.profile) +
               ", digest " + job.profile.digest.substr(0, 12) + ") is not the one the job was submitted with (digest " +
               snap.profile_digest.substr(0, 12) + ")",
           "pass --profile (or SRTSLURM_CONFIG) naming the profile= of the plugin's plugstack.conf line");
    facts.nodes = slurmapi::expand_hostlist(env("SLURM_JOB_NODELIST"));
    facts.job_id = std::strtoull(env("SLURM_JOB_ID").c_str(), nullptr, 10);
  } else {
    if (o.recipe.empty() || o.nodelist.empty())
      fail("outside a job, --dry-run needs --recipe and --nodelist");
    // FILE:SELECTOR too: what the plugin's submit side would carry, and refused where it would be.
    snap = helper::submission_of(o.recipe, job.profile, SRT_VERSION).snapshot;
    facts.nodes = slurmapi::expand_hostlist(o.nodelist);
    facts.job_id = o.job_id;
  }
  // In a job, as every slurmstepd resolves them (a node without a data address fails the job);
  // a dry run away from the cluster plans such a node by its name and says so.
  facts.addresses = in_job ? slurmapi::resolve_addresses(facts.nodes, job.profile)
                           : helper::warn_preview_addresses(slurmapi::preview_addresses(facts.nodes, job.profile));
  // Exactly as every slurmstepd plans it (srt/job_plan.hpp), or the digests cannot agree.
  JobPlan planned = plan_job(snap, job.profile, facts);
  job.recipe = std::move(planned.recipe);
  job.plan = std::move(planned.plan);
  job.plan_inputs = std::move(planned.inputs);
  job.recipe_text = snap.recipe_text;
  if (!job.recipe.unsupported_keys.empty())
    fail("this recipe uses what srt-spank cannot launch yet: " + keys_list(job.recipe.unsupported_keys),
         "remove those keys (srt-helper validate lists them), or run the recipe with srtctl");
  // A setup script that is not there would fail every worker's step after its container started;
  // said once, before any step, with where it was looked for (configs/, then configs/patches/).
  if (const std::string& name = job.recipe.setup_script; !name.empty() && in_job) {
    const std::string& dir = job.profile.setup_scripts_dir;
    const auto regular = [](const std::string& path) {
      struct stat st {};
      return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    };
    if (!regular(dir + "/" + name) && !regular(dir + "/patches/" + name))
      fail("setup_script " + name + " is in neither " + dir + " nor " + dir + "/patches (the profile's setup_scripts_dir)",
           "put the script there, or fix the recipe's setup_script (srt-helper apply --setup-script)");
  }
  job.points = job.plan.benchmark_points;
  if (!o.points.empty()) {
    if (job.plan.benchmark_points.empty())
      fail("--points needs a benchmark that runs one step per point, and this recipe's command does not read " +
               std::string(kBenchmarkPointsVariable),
           "loop over ${" + std::string(kBenchmarkPointsVariable) + ":-<grid>} in benchmark.command, or run the whole sweep");
    std::string grid;
    for (int c : job.plan.benchmark_points) grid += " " + std::to_string(c);
    for (int c : o.points)
      if (std::find(job.plan.benchmark_points.begin(), job.plan.benchmark_points.end(), c) == job.plan.benchmark_points.end())
        fail("--points: " + std::to_string(c) + " is not a point of the recipe's grid (benchmark.concurrencies:" + grid + ")");
    job.points.clear();
    for (int c : job.plan.benchmark_points)
      if (std::find(o.points.begin(), o.points.end(), c) != o.points.end()) job.points.push_back(c);
  }

  const std::string digest = env("SRT_PLAN_DIGEST");
  if (in_job && digest.empty())
    fail("SRT_PLAN_DIGEST is not set in the batch step: the plugin did not plan this job",
         "check that spank_srt.so is in plugstack.conf on the nodes and the job was submitted with --srt-recipe");
  if (in_job && digest != job.plan.digest)
    fail("the Plan computed here (digest " + job.plan.digest.substr(0, 12) + ") differs from the plugin's (" +
             digest.substr(0, 12) + ")",
         "srt-helper and the plugin must come from the same build and read the same profile");
  if (int(facts.nodes.size()) > job.plan.demand_nodes)
    std::fprintf(stderr, "warning: the job has %zu nodes, the recipe uses %d; the others stay idle\n",
                 facts.nodes.size(), job.plan.demand_nodes);

  const HealthCheck hc = effective_health_check(job.recipe, job.profile);
  job.health_budget_seconds = hc.max_attempts * hc.interval_seconds;
  // The directories the Plan mounts at /logs and /results (srt/container_spec.hpp).
  job.job_dir = job_directory(job.profile, job.plan.job_id);
  job.log_dir = job.job_dir + "/logs";
  job.results_dir = job.profile.results_root;
  job.srt_exec = find_srt_exec(o.srt_exec);
  job.srt_helper = helper::executable_path();
  if (job.srt_helper.empty()) job.srt_helper = "srt-helper";
  if (!o.dry_run) {
    // A runtime that gives users root (a trusted rootful docker) lets any of them plant a root-owned
    // directory: then only our own is ours.
    helper::SafeDir::Purpose job_dir_purpose = kJobDirPurpose;
    job_dir_purpose.trust_root = !runtime_gives_users_root(job.profile);
    job.dir = own_dir(job.job_dir, job_dir_purpose);
    job.logs = own_sub(*job.dir, "logs");
    // Where the benchmark writes (/results/<jobid>): made and checked here too, before any step.
    const std::string results = job.results_dir + "/" + std::to_string(job.plan.job_id);
    job.results = job.results_dir.empty() ? nullptr
                  : results == job.job_dir ? job.dir
                                           : own_dir(results, {"results directory", kJobDirPurpose.remedy, job_dir_purpose.trust_root});
  }
  return job;
}

}  // namespace srt::launch

// Hostile or broken inputs on the node side: each ends in a clean job failure with a reason in
// task_init (never a crash, never a failed user_init, never a partly set environment).
#include <stdlib.h>

#include <catch2/catch.hpp>

#include "glue.hpp"
#include "srt/limits.hpp"
#include "srt/contract.hpp"
#include "srt/files.hpp"

using namespace srt::glue_test;
using Catch::Matchers::Contains;
namespace fake = srt::fake;

namespace {

struct Submitted {
  TempDir dir;
  std::string profile = write_lab_profile(dir);
  std::vector<std::string> plugstack = lab_plugstack(dir, profile);
  std::string snapshot;
  Submitted() {
    const std::string recipe = source_path("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");
    fake::reset(S_CTX_ALLOCATOR);
    REQUIRE(call_impl("init_post_opt", {recipe.c_str(), nullptr, plugstack}) == 0);
    snapshot = fake::process().job_control.at(SRT_SNAPSHOT_NAME);
    ::unsetenv(SRT_SNAPSHOT_JOB_ENV);
  }
};

// user_init then task_init on the current fake slurmstepd; returns task_init's stderr.
std::string job_failure(const std::vector<std::string>& plugstack, const char* step = nullptr) {
  REQUIRE(call_impl("user_init", {nullptr, step, plugstack}) == 0);
  for (const auto& [name, value] : fake::process().job_env) CHECK(name.rfind("SRT_", 0) != 0);
  int rc = 0;
  const std::string err = capture_stderr([&] { rc = call_impl("task_init", {nullptr, step, plugstack}); });
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("srt: this job cannot run: "));
  CHECK_THAT(log_text(), Contains("error: srt: "));  // the slurmd log has it too
  return err;
}

}  // namespace

TEST_CASE("a damaged snapshot: garbage, truncated, empty, absent, oversized", "[spank][hostile]") {
  Submitted job;
  const std::string damaged = "recipe snapshot (SLURM_SPANK_SRT_SNAPSHOT) is damaged";

  become_stepd("!!!! not base64 at all \x01\x02", 3, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains(damaged));

  for (std::size_t cut : {job.snapshot.size() / 2, job.snapshot.size() - 1, std::size_t(7), std::size_t(1)}) {
    INFO("cut at " << cut);
    become_stepd(job.snapshot.substr(0, cut), 3, 0, 0);
    CHECK_THAT(job_failure(job.plugstack), Contains(damaged));
  }

  become_stepd("", 3, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains("no recipe snapshot reached the node"));

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().job_env.erase(SRT_SNAPSHOT_JOB_ENV);
  CHECK_THAT(job_failure(job.plugstack), Contains("no recipe snapshot reached the node"));

  // Present but beyond what the node reads: reported as too large, not as missing.
  become_stepd(std::string(300 * 1024, 'A'), 3, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains("the job's " SRT_SNAPSHOT_JOB_ENV " is larger than srt-spank reads"));

  // Just under the read limit but beyond the snapshot's own: the decoder refuses it.
  become_stepd(std::string(200 * 1024, 'A'), 3, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains(damaged));
}

TEST_CASE("a well-formed snapshot of a recipe that is not valid", "[spank][hostile]") {
  Submitted job;
  // The node checks the document again with every rule of the submit side.
  become_stepd(snapshot_of("/home/u/r.yaml", srt::Json{{"name", "x"}, {"bogus", {1, 2}}}, job.profile), 3, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains("/home/u/r.yaml") && Contains("bogus"));
  become_stepd(snapshot_of("/home/u/r.yaml", srt::Json(), job.profile), 3, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains("/home/u/r.yaml"));
}

TEST_CASE("Slurm's items and node lists missing or contradictory", "[spank][hostile]") {
  Submitted job;

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().items.erase(S_JOB_ID);
  CHECK_THAT(job_failure(job.plugstack), Contains("Slurm did not give the job id"));

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().items.erase(S_JOB_STEPID);
  CHECK_THAT(job_failure(job.plugstack), Contains("Slurm did not give the step id"));

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().items.erase(S_JOB_NODEID);
  CHECK_THAT(job_failure(job.plugstack), Contains("this node's index in the step"));

  // The node lists come from the job's environment, which the user writes: the step's never
  // expanded past the step's node count as Slurm gives it, the job's never past kMaxJobNodes,
  // however many hosts the text names (libslurm refuses a single range of over 64K itself).
  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().items.erase(S_JOB_NNODES);
  CHECK_THAT(job_failure(job.plugstack), Contains("Slurm did not give the step's node count"));
  for (const char* list : {"lab-n[1-4]", "lab-n[0-60000]"}) {
    INFO(list);
    become_stepd(job.snapshot, 3, 0, 0);
    fake::process().job_env["SLURM_STEP_NODELIST"] = list;
    CHECK_THAT(job_failure(job.plugstack), Contains("hosts; at most 3 are read here"));
  }
  for (const char* list : {"lab-n[0-60000]", "a[0-60000],b[0-60000],c[0-60000]"}) {
    INFO(list);
    become_stepd(job.snapshot, 3, 0, 0);
    fake::process().job_env["SLURM_JOB_NODELIST"] = list;
    CHECK_THAT(job_failure(job.plugstack), Contains("hosts; at most " + std::to_string(srt::kMaxJobNodes) + " are read here"));
  }

  for (std::uint32_t node_id : {3u, 7u, 0xffffffffu}) {
    become_stepd(job.snapshot, 3, 0, node_id);
    CHECK_THAT(job_failure(job.plugstack), Contains("Slurm's node index is outside the step's node list"));
  }

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().job_env["SLURM_STEP_NODELIST"] = "lab-n9";
  CHECK_THAT(job_failure(job.plugstack), Contains("node lab-n9 is not in the job's node list"));

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().job_env.erase("SLURM_JOB_NODELIST");
  CHECK_THAT(job_failure(job.plugstack), Contains("Slurm gave this step no SLURM_JOB_NODELIST"));

  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().job_env["SLURM_STEP_NODELIST"] = " ";
  std::string err = job_failure(job.plugstack);
  CHECK_THAT(err, Contains("Slurm gave this step no SLURM_STEP_NODELIST"));
  CHECK_THAT(err, !Contains("--nodelist"));  // the helper's advice means nothing inside a job

  // A list Slurm itself cannot read.
  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().job_env["SLURM_JOB_NODELIST"] = "lab-n[3-1]";
  CHECK_THAT(job_failure(job.plugstack), Contains("cannot read the node list 'lab-n[3-1]'"));

  // Fewer nodes than the recipe needs (sbatch -N2 for a 3-node recipe): the Plan says so.
  become_stepd(job.snapshot, 2, 0, 0);
  CHECK_THAT(job_failure(job.plugstack), Contains("the recipe needs 3 nodes but the job has 2"));
}

TEST_CASE("Slurm refusing to set a variable fails the job with Slurm's reason", "[spank][hostile]") {
  Submitted job;
  become_stepd(job.snapshot, 3, 0, 0);
  fake::process().setenv_fails_with = ESPANK_NOSPACE;
  REQUIRE(call_impl("user_init", {nullptr, nullptr, job.plugstack}) == 0);
  int rc = 0;
  const std::string err = capture_stderr([&] { rc = call_impl("task_init", {nullptr, nullptr, job.plugstack}); });
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("cannot set SRT_"));
  CHECK_THAT(err, Contains("Buffer too small"));
}

TEST_CASE("a snapshot another srt-spank version wrote fails the job, naming both versions", "[spank][hostile]") {
  Submitted job;
  const std::string recipe = source_path("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");
  const srt::Json doc = srt::decode_snapshot(job.snapshot).recipe;
  become_stepd(snapshot_of(recipe, doc, job.profile, "0.0.1"), 3, 0, 1);
  CHECK_THAT(job_failure(job.plugstack),
             Contains("submitted with srt-spank 0.0.1 and node lab-n2 runs srt-spank " SRT_VERSION) &&
                 Contains("install one srt-spank version"));
  // The same document from this version plans.
  become_stepd(snapshot_of(recipe, doc, job.profile), 3, 0, 1);
  REQUIRE(call_impl("user_init", {nullptr, nullptr, job.plugstack}) == 0);
  CHECK(call_impl("task_init", {nullptr, nullptr, job.plugstack}) == 0);
  CHECK(fake::process().job_env["SRT_NODE_INDEX"] == "1");
}

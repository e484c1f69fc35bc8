// Submit side (srun/sbatch/salloc, init_post_opt): the real implementation against fake Slurm.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "glue.hpp"
#include "srt/contract.hpp"
#include "srt/profile.hpp"
#include "srt/files.hpp"

using namespace srt::glue_test;
using Catch::Matchers::Contains;
namespace fake = srt::fake;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const char* const kRecipes[] = {
    "recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml",
    "recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml",
    "recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml",
    "recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml",
};

}  // namespace

TEST_CASE("the entry point is the ABI's and refuses a mismatched loader", "[spank][submit]") {
  CleanEnv env;
  REQUIRE(std::string(SRT_IMPL_ENTRY) == "srt_impl_callback");
  REQUIRE(srt_impl_abi == SRT_IMPL_ABI);
  // The Slurm major.minor of the build is part of it: builds for two Slurm releases refuse each other.
  CHECK(SRT_IMPL_ABI % 10000 == SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) * 100 + SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
  CHECK(SRT_IMPL_ABI / 1000000 == SRT_IMPL_ABI_REVISION);
  fake::reset(S_CTX_ALLOCATOR);
  srt_loader_state wrong{SRT_IMPL_ABI + 1, "x.yaml", nullptr, 0, nullptr};
  CHECK(srt_impl_callback("init_post_opt", fake::handle(), &wrong) == -1);
  CHECK(srt_impl_callback(nullptr, fake::handle(), &wrong) == -1);
  CHECK(srt_impl_callback("init_post_opt", fake::handle(), nullptr) == -1);
  CHECK(fake::process().job_control.empty());
}

TEST_CASE("sbatch --srt-recipe attaches the validated bytes and the profile digest to the job", "[spank][submit]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  for (const char* rel : kRecipes) {
    const std::string recipe = source_path(rel);
    INFO(recipe);
    fake::reset(S_CTX_ALLOCATOR);
    REQUIRE(call_impl("init_post_opt", {recipe.c_str(), nullptr, {"profile=" + profile}}) == 0);
    INFO(log_text());
    REQUIRE(fake::process().job_control.count(SRT_SNAPSHOT_NAME) == 1);
    const std::string attached = fake::process().job_control.at(SRT_SNAPSHOT_NAME);
    const char* own = std::getenv(SRT_SNAPSHOT_JOB_ENV);
    REQUIRE(own != nullptr);
    CHECK(attached == own);  // both ways carry the same snapshot
    const srt::Snapshot snap = srt::decode_snapshot(attached);
    CHECK(snap.recipe_path == recipe);
    CHECK(snap.recipe_text == file_bytes(recipe));
    CHECK(snap.profile_digest == srt::load_profile_file(profile).digest);
    CHECK(fake::process().log.empty());
  }
}

TEST_CASE("srun --srt-recipe carries the snapshot in its own environment only", "[spank][submit]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  const std::string recipe = source_path(kRecipes[0]);
  fake::reset(S_CTX_LOCAL);
  REQUIRE(call_impl("init_post_opt", {recipe.c_str(), "prefill:0", {"profile=" + profile}}) == 0);
  CHECK(fake::process().job_control.empty());  // job control variables never reach srun's steps
  REQUIRE(std::getenv(SRT_SNAPSHOT_JOB_ENV) != nullptr);
  CHECK(srt::decode_snapshot(std::getenv(SRT_SNAPSHOT_JOB_ENV)).recipe_path == recipe);
}

TEST_CASE("a bad recipe fails the submission with file:line in the message", "[spank][submit]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  for (const char* name : {"reserved-tp.yaml", "unknown-top-typo.yaml", "yaml-syntax.yaml", "workers-do-not-fit.yaml"}) {
    const std::string recipe = source_path(std::string("tests/fixtures/recipes/bad/") + name);
    INFO(recipe);
    fake::reset(S_CTX_ALLOCATOR);
    CHECK(call_impl("init_post_opt", {recipe.c_str(), nullptr, {"profile=" + profile}}) == -1);
    const std::string log = log_text();
    INFO(log);
    CHECK(std::regex_search(log, std::regex("error: srt: .*" + std::string(name) + ":[0-9]+")));
    CHECK(fake::process().job_control.empty());
    CHECK(std::getenv(SRT_SNAPSHOT_JOB_ENV) == nullptr);
  }
}

TEST_CASE("submit-side refusals: missing recipe file, --srt-step alone, bad step, plugstack typo", "[spank][submit]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  const std::string recipe = source_path(kRecipes[0]);
  const std::string missing = (dir / "missing.yaml");

  fake::reset(S_CTX_ALLOCATOR);
  CHECK(call_impl("init_post_opt", {missing.c_str(), nullptr, {"profile=" + profile}}) == -1);
  CHECK_THAT(log_text(), Contains("missing.yaml"));

  fake::reset(S_CTX_LOCAL);
  CHECK(call_impl("init_post_opt", {nullptr, "prefill:0", {"profile=" + profile}}) == -1);
  CHECK_THAT(log_text(), Contains("--srt-step only works inside a job started with --srt-recipe"));

  fake::reset(S_CTX_LOCAL);
  CHECK(call_impl("init_post_opt", {recipe.c_str(), "prefill", {"profile=" + profile}}) == -1);
  CHECK_THAT(log_text(), Contains("--srt-step=prefill is not a worker name"));

  fake::reset(S_CTX_ALLOCATOR);
  CHECK(call_impl("init_post_opt", {recipe.c_str(), nullptr, {"profile=" + profile, "topolgy=/x.xml"}}) == -1);
  CHECK_THAT(log_text(), Contains("unknown plugstack.conf argument 'topolgy=/x.xml'"));

  fake::reset(S_CTX_ALLOCATOR);
  CHECK(call_impl("init_post_opt", {recipe.c_str(), nullptr, {"profile=" + (dir / "none.yaml")}}) == -1);
  CHECK_THAT(log_text(), Contains("none.yaml"));
  CHECK(fake::process().job_control.empty());
}

TEST_CASE("a nested srun inside an srt job reuses the job's snapshot and opens nothing", "[spank][submit]") {
  CleanEnv env;
  // The job's recipe path, re-delivered to the srun by Slurm, may not exist on this node (submit
  // --set's effective recipe is gone once sbatch returns): the snapshot names it, nothing is read.
  const std::string job = snapshot_of("/nonexistent/recipe.yaml", srt::Json{{"name", "x"}}, "");
  ::setenv(SRT_SNAPSHOT_JOB_ENV, job.c_str(), 1);
  ::setenv("SLURM_JOB_ID", "4242", 1);
  fake::reset(S_CTX_LOCAL);
  CHECK(call_impl("init_post_opt", {"/nonexistent/recipe.yaml", "decode:0", {"profile=/nonexistent.yaml"}}) == 0);
  CHECK(call_impl("init_post_opt", {nullptr, "decode:0", {"profile=/nonexistent.yaml"}}) == 0);  // --srt-step only
  CHECK(std::string(std::getenv(SRT_SNAPSHOT_JOB_ENV)) == job);
  CHECK(fake::process().log.empty());
}

TEST_CASE("a nested submit naming another recipe validates and snapshots that one (issue 23, finding 7)",
          "[spank][submit]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  const std::string outer = source_path(kRecipes[0]);
  const std::string other = source_path(kRecipes[1]);
  const std::string job = snapshot_of(outer, srt::parse_yaml(file_bytes(outer), outer).root, profile);
  ::setenv(SRT_SNAPSHOT_JOB_ENV, job.c_str(), 1);
  ::setenv("SLURM_JOB_ID", "4242", 1);

  fake::reset(S_CTX_ALLOCATOR);  // sbatch --srt-recipe=other inside the job
  REQUIRE(call_impl("init_post_opt", {other.c_str(), nullptr, {"profile=" + profile}}) == 0);
  INFO(log_text());
  REQUIRE(fake::process().job_control.count(SRT_SNAPSHOT_NAME) == 1);
  const srt::Snapshot attached = srt::decode_snapshot(fake::process().job_control.at(SRT_SNAPSHOT_NAME));
  CHECK(attached.recipe_path == other);
  CHECK(attached.recipe_text == file_bytes(other));
  CHECK(srt::decode_snapshot(std::getenv(SRT_SNAPSHOT_JOB_ENV)).recipe_path == other);

  // Another recipe is validated like any: a bad one stops the nested submit, the job keeps its own.
  ::setenv(SRT_SNAPSHOT_JOB_ENV, job.c_str(), 1);
  const std::string bad = source_path("tests/fixtures/recipes/bad/reserved-tp.yaml");
  fake::reset(S_CTX_LOCAL);
  CHECK(call_impl("init_post_opt", {bad.c_str(), nullptr, {"profile=" + profile}}) == -1);
  CHECK_THAT(log_text(), Contains("reserved-tp.yaml"));
  CHECK(std::string(std::getenv(SRT_SNAPSHOT_JOB_ENV)) == job);
}

TEST_CASE("callbacks outside their context do nothing", "[spank][submit]") {
  CleanEnv env;
  for (const char* cb : {"local_user_init", "exit", "slurmd_init"}) {
    fake::reset(S_CTX_LOCAL);
    CHECK(call_impl(cb, {"/nonexistent/recipe.yaml", nullptr, {}}) == 0);
    CHECK(fake::process().log.empty());
  }
  fake::reset(S_CTX_REMOTE);  // init_post_opt also runs in slurmstepd: the submit side must not
  CHECK(call_impl("init_post_opt", {"/nonexistent/recipe.yaml", nullptr, {}}) == 0);
  CHECK(fake::process().log.empty());
  CHECK(std::getenv(SRT_SNAPSHOT_JOB_ENV) == nullptr);
}

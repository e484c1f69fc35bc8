// --srt-recipe=FILE:SELECTOR (a variants file's variant): the submit side expands and validates
// that variant and the snapshot carries it, so the nodes never read the file; a variants file
// without a selector, or a selector that matches nothing, is refused at submit with the choices.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "glue.hpp"
#include "srt/contract.hpp"
#include "srt/document.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"

using namespace srt::glue_test;
using Catch::Matchers::Contains;
namespace fake = srt::fake;

namespace {

std::string fixture() {
  return srt::read_text_file(source_path("tests/fixtures/recipes/variants/atom-variants.yaml"), 1 << 20);
}

}  // namespace

TEST_CASE("sbatch --srt-recipe=FILE:SELECTOR snapshots the expanded variant - nodes never read the file",
          "[spank][submit][variants]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  const std::string file = dir.write("v.yaml", fixture());
  const std::string given = file + ":override_2p1d";
  std::vector<std::string> plugstack = lab_plugstack(dir, profile);

  fake::reset(S_CTX_ALLOCATOR);
  REQUIRE(call_impl("init_post_opt", {given.c_str(), nullptr, plugstack}) == 0);
  INFO(log_text());
  CHECK(fake::process().log.empty());
  const std::string snapshot = fake::process().job_control.at(SRT_SNAPSHOT_NAME);
  const srt::Snapshot snap = srt::decode_snapshot(snapshot);
  CHECK(snap.recipe_path == given);  // SRT_RECIPE: the path and the selector as given
  CHECK(snap.variant_selector == "override_2p1d");
  CHECK(snap.variant_name == "t-2p1d");
  // The variant itself, a plain recipe: no base:, no other variant's sections.
  const srt::Recipe r = srt::load_recipe_text(snap.recipe_text, snap.recipe_path);
  CHECK(r.name == "t-2p1d");
  CHECK(r.resources.prefill_nodes == 2);
  CHECK(snap.recipe_text.find("override_bad") == std::string::npos);
  CHECK(snap.recipe_text.find("zip_override") == std::string::npos);
  ::unsetenv(SRT_SNAPSHOT_JOB_ENV);

  // On the nodes: the file is gone, the job still runs, and SRT_RECIPE names what was given.
  REQUIRE(::unlink(file.c_str()) == 0);
  for (std::uint32_t node = 0; node < 3; ++node) {
    INFO("node " << node);
    become_stepd(snapshot, 3, 0, node);
    REQUIRE(call_impl("user_init", {nullptr, nullptr, plugstack}) == 0);
    INFO(log_text());
    CHECK(fake::process().log.empty());
    CHECK(fake::process().job_env.at("SRT_RECIPE") == given);
  }
  ::unsetenv(SRT_SNAPSHOT_JOB_ENV);
}

TEST_CASE("a zip variant by index, and a glob that picks one, are accepted", "[spank][submit][variants]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  const std::string file = dir.write("v.yaml", fixture());
  for (const std::string sel : {"zip_override_scale[1]", "*2p1d"}) {
    const std::string given = file + ":" + sel;
    INFO(given);
    fake::reset(S_CTX_ALLOCATOR);
    REQUIRE(call_impl("init_post_opt", {given.c_str(), nullptr, {"profile=" + profile}}) == 0);
    const srt::Snapshot snap = srt::decode_snapshot(fake::process().job_control.at(SRT_SNAPSHOT_NAME));
    CHECK(snap.variant_name == (sel == "*2p1d" ? "t-2p1d" : "t_scale_1"));
    ::unsetenv(SRT_SNAPSHOT_JOB_ENV);
  }
}

TEST_CASE("a variants file without a selector, a selector that matches nothing, a bad variant: refused at submit",
          "[spank][submit][variants]") {
  CleanEnv env;
  TempDir dir;
  const std::string profile = write_lab_profile(dir);
  const std::string file = dir.write("v.yaml", fixture());
  const auto refused = [&](const std::string& given) {
    fake::reset(S_CTX_ALLOCATOR);
    CHECK(call_impl("init_post_opt", {given.c_str(), nullptr, {"profile=" + profile}}) == -1);
    CHECK(fake::process().job_control.empty());
    CHECK(std::getenv(SRT_SNAPSHOT_JOB_ENV) == nullptr);
    return log_text();
  };
  CHECK_THAT(refused(file), Contains("is a variants file with 4 variants, and a job runs one") &&
                                Contains("--srt-recipe=" + file + ":SELECTOR; the variants: override_2p1d, override_bad"));
  CHECK_THAT(refused(file + ":zip_override_scale"), Contains("selects 2 variants"));
  CHECK_THAT(refused(file + ":override_nope"),
             Contains("there is no variant 'override_nope'") && Contains("valid selectors: base, override_2p1d"));
  CHECK_THAT(refused(file + ":zip_override_scale[7]"), Contains("[7] is out of range"));
  CHECK_THAT(refused(file + ":override_bad"), Contains("v.yaml:3") && Contains("resources.decode_workers: in variant override_bad"));
}

// INFMAX_WORKSPACE as srt-helper submit/apply turn it into the submitted recipe's mount of
// /infmax-workspace (srt/workspace.hpp): added unless the recipe mounts that path itself, refused
// when it cannot be a host path.
#include <catch2/catch.hpp>

#include "srt/profile.hpp"
#include "srt/workspace.hpp"

namespace test_workspace {

const srt::Profile kProfile = [] {
  srt::Profile p = srt::default_profile();
  p.results_root = "/shared/results";
  return p;
}();

TEST_CASE("INFMAX_WORKSPACE: unset adds nothing - an absolute path is mounted at /infmax-workspace") {
  srt::Json root = srt::Json::parse(R"({"name": "r", "container_mounts": {"/shared/hf": "/hf_hub_cache"}})");
  const srt::WorkspaceMount none = srt::workspace_mount(root, "", kProfile);
  CHECK_FALSE(none.mount);
  CHECK(none.note.empty());
  CHECK(none.problem.empty());

  const srt::WorkspaceMount w = srt::workspace_mount(root, "/scratch/run-7/infmax", kProfile);
  REQUIRE(w.mount);
  srt::add_workspace_mount(root, "/scratch/run-7/infmax");
  CHECK(root["container_mounts"]["/scratch/run-7/infmax"] == "/infmax-workspace");
  CHECK(root["container_mounts"]["/shared/hf"] == "/hf_hub_cache");  // the recipe's own stay

  srt::Json bare = srt::Json::parse(R"({"name": "r"})");
  srt::add_workspace_mount(bare, "/ws");
  CHECK(bare["container_mounts"] == srt::Json::parse(R"({"/ws": "/infmax-workspace"})"));
}

TEST_CASE("INFMAX_WORKSPACE: a recipe that mounts /infmax-workspace itself keeps its mount, and says so") {
  const srt::Json mounts = srt::Json::parse(R"({"container_mounts": {"/mine": "/infmax-workspace"}})");
  const srt::WorkspaceMount a = srt::workspace_mount(mounts, "/scratch/ws", kProfile);
  CHECK_FALSE(a.mount);
  CHECK_THAT(a.note, Catch::Contains("container_mounts./mine"));
  const srt::Json extra = srt::Json::parse(R"({"extra_mount": ["/other:/infmax-workspace:ro"]})");
  const srt::WorkspaceMount b = srt::workspace_mount(extra, "/scratch/ws", kProfile);
  CHECK_FALSE(b.mount);
  CHECK_THAT(b.note, Catch::Contains("extra_mount /other:/infmax-workspace:ro"));
  // A mount of another path is no reason to leave the workspace out.
  CHECK(srt::workspace_mount(srt::Json::parse(R"({"extra_mount": ["/infmax-workspace-old:/old"]})"), "/ws", kProfile).mount);
}

TEST_CASE("INFMAX_WORKSPACE: what a recipe may not mount is refused, by the profile's rule") {
  const srt::Json root = srt::Json::object();
  const auto problem = [&root](const std::string& ws, const srt::Profile& p) {
    const srt::WorkspaceMount w = srt::workspace_mount(root, ws, p);
    CHECK_FALSE(w.mount);
    return w.problem;
  };
  CHECK_THAT(problem("workspace", kProfile), Catch::Contains("is not absolute"));
  CHECK_THAT(problem("/ws/../etc", kProfile), Catch::Contains("'..'"));
  CHECK_THAT(problem("/etc", kProfile), Catch::Contains("system directory /etc"));
  CHECK_THAT(problem("/shared/results", kProfile), Catch::Contains("results root"));
  srt::Profile narrow = kProfile;
  narrow.recipe_mount_prefixes = {"/scratch"};
  CHECK_THAT(problem("/home/u/ws", narrow), Catch::StartsWith("INFMAX_WORKSPACE=/home/u/ws: the host path"));
  CHECK(srt::workspace_mount(root, "/scratch/u/ws", narrow).mount);
}

}  // namespace test_workspace

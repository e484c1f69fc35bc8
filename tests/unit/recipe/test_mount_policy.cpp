// Recipe mounts against the profile, and the container runtimes a profile may use
// (srt/mount_policy.hpp; docs/security.md "Recipes and snapshots", "Container runtimes").
#include <catch2/catch.hpp>

#include <string>

#include "minimal_recipe.hpp"
#include "srt/mount_policy.hpp"
#include "srt/plan.hpp"

namespace {

srt::Profile profile(const std::string& text = "{}") {
  return srt::profile_from_document(srt::parse_yaml(text, "p.yaml"));
}

srt::Recipe recipe(const std::string& extra) {
  return srt::load_recipe_text(std::string(srt_test::kMinimalRecipe) + extra, "r.yaml");
}

// What node_demand (validate, nodes, submit, plan, launch) says of the recipe, "" = accepted.
std::string refusal(const std::string& extra, const srt::Profile& p = profile()) {
  try {
    srt::node_demand(recipe(extra), p);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("H1: a recipe mounting a device or the node's root is refused with the reason", "[mount_policy]") {
  const std::string dev = refusal("container_mounts: {/dev/sda: /dev/sda}\n");
  CHECK_THAT(dev, Catch::Contains("r.yaml:6:"));
  CHECK_THAT(dev, Catch::Contains("container_mounts./dev/sda"));
  CHECK_THAT(dev, Catch::Contains("is a device: devices come only from the cluster profile"));
  CHECK_THAT(refusal("container_mounts: {/: /host}\n"), Catch::Contains("the node's whole file system"));
  CHECK_THAT(refusal("extra_mount: [\"/:/host\"]\n"), Catch::Contains("extra_mount[0]"));
  CHECK_THAT(refusal("extra_mount: [/dev/dri/card0]\n"), Catch::Contains("is a device"));
  CHECK_THAT(refusal("extra_mount: [\"/data/../etc:/x\"]\n"), Catch::Contains("'..'"));
  CHECK_THAT(refusal("extra_mount: [\"vol:/x\"]\n"), Catch::Contains("not absolute"));
  // Both problems at once, each at its key.
  const std::string both = refusal("container_mounts: {/etc: /e, /data: /data}\nextra_mount: [/var/lib/docker]\n");
  CHECK_THAT(both, Catch::Contains("system directory /etc"));
  CHECK_THAT(both, Catch::Contains("system directory /var"));
  CHECK_THAT(both, !Catch::Contains("/data'"));
}

TEST_CASE("H1: the results root (every user's jobs) is not a recipe mount", "[mount_policy]") {
  const srt::Profile p = profile("results_root: /it-share/results\n");
  CHECK_THAT(refusal("container_mounts: {/it-share/results/123: /r}\n", p), Catch::Contains("results root"));
  CHECK_THAT(refusal("container_mounts: {/it-share: /s}\n", p), Catch::Contains("results root"));
  CHECK(refusal("container_mounts: {/it-share/models: /models}\n", p).empty());
}

TEST_CASE("H1: with recipe_mount_prefixes only paths under them mount", "[mount_policy]") {
  const srt::Profile p = profile("recipe_mount_prefixes: [/data, /models/]\n");
  CHECK(refusal("container_mounts: {/data: /d, /models/x: /m}\nextra_mount: [\"/data/a:/a:ro\"]\n", p).empty());
  CHECK_THAT(refusal("container_mounts: {/database: /d}\n", p),
             Catch::Contains("not under the profile's recipe_mount_prefixes (/data, /models/)"));
  CHECK_THAT(refusal("container_mounts: {/dev/sda: /d}\n", profile("recipe_mount_prefixes: [/]\n")),
             Catch::Contains("is a device"));
}

TEST_CASE("H1: a rootful docker is refused unless the profile trusts its users as root", "[mount_policy]") {
  const srt::Profile docker = profile("container_runtime: docker\n");
  CHECK_THAT(srt::container_runtime_refusal(docker, false), Catch::Contains("docker_users_are_root: true"));
  CHECK(srt::container_runtime_refusal(docker, true).empty());
  CHECK_FALSE(srt::runtime_gives_users_root(docker));
  const srt::Profile trusted = profile("container_runtime: docker\ndocker_users_are_root: true\n");
  CHECK(srt::container_runtime_refusal(trusted, false).empty());
  CHECK(srt::runtime_gives_users_root(trusted));
  for (const char* rt : {"pyxis", "podman", "bwrap", "none"}) {
    const srt::Profile other = profile(std::string("container_runtime: ") + rt + "\n");
    CHECK(srt::container_runtime_refusal(other, false).empty());
    CHECK_FALSE(srt::runtime_gives_users_root(other));
  }
}

TEST_CASE("a mount is read only in its canonical spelling", "[mount_policy]") {
  // Each of these is /dev, /etc or the results root to the kernel; compared as written they were not.
  for (const char* host : {"/./dev/sda", "//dev/sda", "/data/./../etc", "/it-share//results", "/etc/.", "/data//models"}) {
    INFO(host);
    const std::string why = srt::recipe_mount_refusal(host, profile());
    CHECK_FALSE(why.empty());
  }
  CHECK_THAT(srt::recipe_mount_refusal("//dev/sda", profile()), Catch::Contains("not in canonical form (write '/dev/sda')"));
  CHECK_THAT(srt::recipe_mount_refusal("/data//models", profile()), Catch::Contains("write '/data/models'"));
  CHECK(srt::recipe_mount_refusal("/data/models/", profile()).empty());
}

TEST_CASE("pyxis's container-mounts among srun_options goes through the same policy", "[mount_policy]") {
  const std::string why = refusal("srun_options: {container-mounts: \"/data:/data,/etc:/host-etc:ro\"}\n");
  CHECK_THAT(why, Catch::Contains("srun_options.container-mounts"));
  CHECK_THAT(why, Catch::Contains("under the node's system directory /etc"));
  CHECK_THAT(refusal("srun_options: {container_mounts: \"//dev/sda:/disk\"}\n"), Catch::Contains("not in canonical form"));
  CHECK(refusal("srun_options: {container-mounts: \"/data:/data,/models:/models:ro\"}\n").empty());
  CHECK(refusal("srun_options: {container-image: /etc/image.sqsh}\n").empty());
}

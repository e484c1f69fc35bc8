// srt/mount_policy.hpp.
#include "srt/mount_policy.hpp"

#include <vector>

#include "srt/error.hpp"

namespace srt {
namespace {

// Below which a recipe never mounts when the profile names no prefixes: the node's own system
// (a root container writing /etc or /usr owns the node), its kernel views and devices, and the
// runtimes' and Slurm's state.
const char* const kSystemDirectories[] = {"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
                                          "/proc", "/root", "/run", "/sbin", "/sys", "/usr", "/var"};

bool same_or_below(const std::string& path, const std::string& prefix) {
  std::string p = prefix;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (p == "/") return true;
  return path == p || (path.rfind(p, 0) == 0 && path[p.size()] == '/');
}

}  // namespace

std::string recipe_mount_refusal(std::string host, const Profile& profile) {
  if (host.empty() || host.front() != '/')
    return "the host path '" + host + "' is not absolute (docker and podman take a bare name for a named volume)";
  if (("/" + host + "/").find("/../") != std::string::npos)
    return "the host path '" + host + "' has a '..' component";
  while (host.size() > 1 && host.back() == '/') host.pop_back();
  if (same_or_below(host, "/dev"))
    return "the host path '" + host + "' is a device: devices come only from the cluster profile (gpu_devices, "
           "default_mounts, rdma_mounts), never from a recipe";
  if (host == "/") return "the host path '/' is the node's whole file system";
  if (!profile.recipe_mount_prefixes.empty()) {
    for (const auto& prefix : profile.recipe_mount_prefixes)
      if (same_or_below(host, prefix)) return "";
    std::string list;
    for (const auto& prefix : profile.recipe_mount_prefixes) list += (list.empty() ? "" : ", ") + prefix;
    return "the host path '" + host + "' is not under the profile's recipe_mount_prefixes (" + list + ")";
  }
  for (const char* dir : kSystemDirectories)
    if (same_or_below(host, dir)) return "the host path '" + host + "' is under the node's system directory " + dir;
  if (same_or_below(host, profile.results_root) || same_or_below(profile.results_root, host))
    return "the host path '" + host + "' holds or is within the results root " + profile.results_root +
           ", where every user's jobs write (each container gets its own job's directory as /results/<job id>)";
  return "";
}

namespace {

constexpr const char* kHint =
    "mount a data directory (models, datasets) instead; the cluster's profile lists where recipe mounts may come "
    "from (recipe_mount_prefixes)";

}  // namespace

void check_recipe_mounts(const Recipe& recipe, const Profile& profile) {
  std::vector<Diagnostic> problems;
  for (const auto& [host, inside] : recipe.container_mounts)
    if (std::string why = recipe_mount_refusal(host, profile); !why.empty())
      problems.push_back(recipe.source.at(join_path("container_mounts", host), why, kHint));
  for (std::size_t i = 0; i < recipe.extra_mount.size(); ++i) {
    const std::string& spec = recipe.extra_mount[i];
    if (std::string why = recipe_mount_refusal(spec.substr(0, spec.find(':')), profile); !why.empty())
      problems.push_back(recipe.source.at(index_path("extra_mount", i), why, kHint));
  }
  if (!problems.empty()) throw Error(std::move(problems));
}

std::string container_runtime_refusal(const Profile& profile, bool daemon_rootless) {
  if (profile.container_runtime != ContainerRuntime::docker || daemon_rootless || profile.docker_users_are_root)
    return "";
  return "container_runtime docker with a rootful daemon makes every job user root on the node (its socket is "
         "root's), and its containers escape Slurm's cgroup limits; use pyxis or podman, run a rootless docker "
         "daemon, or, if every job user is trusted as root, set docker_users_are_root: true in the profile";
}

bool runtime_gives_users_root(const Profile& profile) {
  return profile.container_runtime == ContainerRuntime::docker && profile.docker_users_are_root;
}

}  // namespace srt

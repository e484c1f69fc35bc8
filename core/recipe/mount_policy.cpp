// srt/mount_policy.hpp.
#include "srt/mount_policy.hpp"

#include <algorithm>
#include <vector>

#include "extract.hpp"
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

// `path` (absolute, without "..") with every empty and "." component dropped.
std::string lexical_canonical(const std::string& path) {
  std::string out;
  for (std::size_t at = 0; at < path.size();) {
    const std::size_t end = std::min(path.find('/', at), path.size());
    const std::string part = path.substr(at, end - at);
    if (!part.empty() && part != ".") out += "/" + part;
    at = end + 1;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

std::string recipe_mount_refusal(std::string host, const Profile& profile) {
  if (host.empty() || host.front() != '/')
    return "the host path '" + host + "' is not absolute (docker and podman take a bare name for a named volume)";
  if (("/" + host + "/").find("/../") != std::string::npos)
    return "the host path '" + host + "' has a '..' component";
  while (host.size() > 1 && host.back() == '/') host.pop_back();
  // Compared as written, so only the canonical spelling is read: '/./dev' or '//dev/sda' is
  // /dev to the kernel, and '/it-share//results' the results root.
  if (const std::string canonical = lexical_canonical(host); canonical != host)
    return "the host path '" + host + "' is not in canonical form (write '" + canonical + "')";
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
  // pyxis's --container-mounts=SRC:DST[:FLAGS][,...] given as an srun option is a mount as well:
  // the recipe's, each role's and each service's.
  const auto srun_mounts = [&](const EnvList& options, const std::string& parent) {
    for (const auto& [key, value] : options) {
      if (recipe_detail::flag_name(key) != "container-mounts") continue;
      for (std::size_t at = 0; at <= value.size();) {
        const std::size_t end = std::min(value.find(',', at), value.size());
        const std::string spec = value.substr(at, end - at);
        if (std::string why = recipe_mount_refusal(spec.substr(0, spec.find(':')), profile); !why.empty())
          problems.push_back(recipe.source.at(join_path(parent, key), why, kHint));
        at = end + 1;
      }
    }
  };
  srun_mounts(recipe.srun_options, "srun_options");
  for (const auto& [role, options] : recipe.per_role.srun_options) srun_mounts(options, "roles." + role + ".srun_options");
  for (std::size_t i = 0; i < recipe.services.size(); ++i)
    srun_mounts(recipe.services[i].srun_options, index_path("services", i) + ".srun_options");
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

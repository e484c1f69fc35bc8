// How a step reaches its container. pyxis/enroot: srun options in srtctl's order; bwrap (the
// lab): a bubblewrap sandbox that shows the host with the same mounts a container would have;
// none: the host as it is. kv-relays always run on the host (pyxis shares the host's network).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <string>

#include "launch.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"

namespace srt::launch {
namespace {

// Where srt-exec appears inside a pyxis container (mounted read-only from the host).
constexpr const char* kSrtExecInContainer = "/usr/local/libexec/srt/srt-exec";

bool in_container(const Process& p) { return p.role != "kv-relay"; }

// "SRC:DST[:FLAGS]" (recipe extra_mount); DST defaults to SRC as pyxis does.
Mount parse_mount(const std::string& spec) {
  Mount m;
  const auto a = spec.find(':');
  m.host = spec.substr(0, a);
  if (a == std::string::npos) { m.container = m.host; return m; }
  const auto b = spec.find(':', a + 1);
  m.container = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  m.read_only = b != std::string::npos && spec.substr(b + 1).find("ro") != std::string::npos;
  return m;
}

// A later mount of the same container path replaces the earlier one in place (job-level
// mounts take priority over the profile's, as in srtctl).
void add(std::vector<Mount>& mounts, Mount m) {
  if (m.host.empty() || m.container.empty()) return;
  for (auto& have : mounts)
    if (have.container == m.container) { have = std::move(m); return; }
  mounts.push_back(std::move(m));
}

std::string join_mounts(const std::vector<Mount>& mounts) {
  std::string out;
  for (const auto& m : mounts) out += (out.empty() ? "" : ",") + m.host + ":" + m.container + (m.read_only ? ":ro" : "");
  return out;
}

// bwrap: a fresh root that binds every top-level entry of the host's root (so the sandbox sees
// the host), then the mounts on top; mount points are created in the sandbox's own tmpfs root,
// never in the host's /. Its own PID namespace, as a container has: when the engine dies, the
// kernel ends its orphaned ranks too. Without it they are re-parented to init, out of reach of
// proctrack/linuxproc (the lab's), and hold the worker's ports after the job has ended.
std::vector<std::string> bwrap_prefix(const std::vector<Mount>& mounts) {
  std::vector<std::string> a = {"bwrap", "--die-with-parent", "--unshare-pid", "--tmpfs", "/"};
  DIR* root = ::opendir("/");
  if (!root) fail("cannot list / for the bwrap sandbox");
  std::vector<std::string> entries;
  while (dirent* e = ::readdir(root)) {
    const std::string name = e->d_name;
    if (name != "." && name != ".." && name != "proc" && name != "dev" && name != "tmp") entries.push_back(name);
  }
  ::closedir(root);
  std::sort(entries.begin(), entries.end());
  for (const auto& name : entries) {
    const std::string path = "/" + name;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    if (n > 0) a.insert(a.end(), {"--symlink", std::string(target, std::size_t(n)), path});
    else a.insert(a.end(), {"--bind", path, path});
  }
  a.insert(a.end(), {"--dev-bind", "/dev", "/dev", "--proc", "/proc", "--bind", "/tmp", "/tmp"});
  for (const auto& m : mounts) a.insert(a.end(), {m.read_only ? "--ro-bind" : "--bind", m.host, m.container});
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd)) a.insert(a.end(), {"--chdir", cwd});
  a.push_back("--");
  return a;
}

}  // namespace

// The recipe's image for the role, through the profile's aliases (the runtime decides whether
// a step uses it).
std::string image_for(const Job& job, const Process& p) {
  std::string image = job.recipe.model.container;
  if (p.role == "router" && !job.recipe.frontend.container_image.empty()) image = job.recipe.frontend.container_image;
  if (p.role == "benchmark" && !job.recipe.benchmark.container_image.empty()) image = job.recipe.benchmark.container_image;
  auto alias = job.profile.containers.find(image);
  return alias == job.profile.containers.end() ? image : alias->second;
}

std::string pyxis_container_name(const std::string& image) { return "srt-" + sha256_hex(image).substr(0, 12); }


std::vector<Mount> container_mounts(const Job& job, const Process& p) {
  std::vector<Mount> m;
  // srtctl's order: built-ins, default_mounts, extra_mount, container_mounts.
  add(m, {job.log_dir, "/logs", false});
  add(m, {job.results_dir, "/results", false});
  const std::string model = job.recipe.model.path;
  auto alias = job.profile.model_paths.find(model);
  const std::string local = alias != job.profile.model_paths.end() ? alias->second : model;
  // The Plan passes a local model by its host path, so it appears at the same path.
  if (!local.empty() && local.front() == '/') add(m, {local, local, true});
  if (job.profile.container_runtime == ContainerRuntime::pyxis) {
    add(m, {"/dev/kfd", "/dev/kfd", false});
    add(m, {"/dev/dri", "/dev/dri", false});
  }
  for (const auto& [host, inside] : job.profile.default_mounts) add(m, {host, inside, false});
  for (const auto& spec : job.recipe.extra_mount) add(m, parse_mount(spec));
  for (const auto& [host, inside] : job.recipe.container_mounts) add(m, {host, inside, false});
  const bool worker = p.is_worker();
  if (job.rdma && worker)
    for (const auto& [host, inside] : job.profile.rdma_mounts) add(m, {host, inside, host != "/dev/infiniband"});
  if (job.profile.container_runtime == ContainerRuntime::pyxis) add(m, {job.srt_exec, kSrtExecInContainer, true});
  return m;
}

ContainerCommand container_command(const Job& job, const Process& p) {
  ContainerCommand c;
  c.srt_exec = job.srt_exec;
  if (!in_container(p) || job.profile.container_runtime == ContainerRuntime::none) return c;
  const std::vector<Mount> mounts = container_mounts(job, p);
  if (job.profile.container_runtime == ContainerRuntime::bwrap) {
    c.wrapper = bwrap_prefix(mounts);
    return c;
  }
  const std::string image = image_for(job, p);
  if (image.empty())
    fail("process " + p.name + " has no container image", "set model.container in the recipe");
  c.srt_exec = kSrtExecInContainer;
  // One container per image per node, reused by every step of the job there (pyxis keeps named
  // containers for the job's lifetime).
  c.srun_options = {"--container-image=" + image, "--container-name=" + pyxis_container_name(image),
                    "--no-container-entrypoint", "--no-container-mount-home",
                    "--container-mounts=" + join_mounts(mounts)};
  return c;
}

}  // namespace srt::launch

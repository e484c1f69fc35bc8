// How a step reaches its container, rendered from the Plan's ContainerSpec. pyxis/enroot: srun
// options in srtctl's order; podman/docker: `RUNTIME run` behind srt-exec on the host, which names
// the container for the job and step and passes the step's environment (see run_prefix); bwrap
// (the lab): a bubblewrap sandbox that shows the host with the same mounts a container would have
// (all of /dev, so no device mounts); none: the host as it is. kv-relays always run on the host
// (the Plan says on_host; pyxis shares the host's network).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <set>
#include <string>

#include "launch.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"

namespace srt::launch {
namespace {

// Where srt-exec appears inside a pyxis container (mounted read-only from the host).
constexpr const char* kSrtExecInContainer = "/usr/local/libexec/srt/srt-exec";

std::string join_mounts(const std::vector<Mount>& mounts) {
  return join(mounts, ",", [](const Mount& m) { return m.host + ":" + m.container + (m.read_only ? ":ro" : ""); });
}

// bwrap: a fresh root that binds every top-level entry of the host's root (so the sandbox sees
// the host), then the mounts on top; mount points are created in the sandbox's own tmpfs root,
// never in the host's /. /tmp is the sandbox's own, as an enroot container's is: nothing may
// count on reaching the host's /tmp from a worker (docs/design.md "KV events": an ipc:// socket
// there). Its own PID namespace, as a container has: when the engine dies, the kernel ends its
// orphaned ranks too. Without it they are re-parented to init, out of reach of proctrack/linuxproc
// (the lab's), and hold the worker's ports after the job has ended.
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
  a.insert(a.end(), {"--dev-bind", "/dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"});
  for (const auto& m : mounts)
    if (!m.device) a.insert(a.end(), {m.read_only ? "--ro-bind" : "--bind", m.host, m.container});
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd)) a.insert(a.end(), {"--chdir", cwd});
  a.push_back("--");
  return a;
}

// podman/docker, as InferenceX's legacy MI355X launcher ran `docker run` per node, but one
// container per step:
//   srt-exec --container [--pass NAME]... -- RUNTIME [runtime args] run --rm --init --label
//     srt.process=NAME --network host --ipc host --group-add video --cap-drop ALL --security-opt
//     no-new-privileges --device ... --volume ...
//     [--ulimit memlock=-1:-1] [run args] --entrypoint "" IMAGE
// srt-exec on the host adds --name srt-<job>-<step>, --label srt.job=<job> and an --env NAME
// for each variable of the step (the plugin sets most of them in the task, after this argv is
// written; see exec/srt_exec.cpp). --init: the engine is not PID 1, which ignores a TERM
// it has no handler for, so srun's TERM (forwarded by the client) stops it. No --shm-size: with
// --ipc host the container's /dev/shm is the host's. The Plan's own variables are always passed
// (--pass), even those srt-exec keeps from the host otherwise (PATH, LD_LIBRARY_PATH, ...).
std::vector<std::string> run_prefix(const Job& job, const Process& p, const std::vector<Mount>& mounts) {
  std::vector<std::string> a = {job.srt_exec, "--container"};
  if (job.profile.container_user == "job") a.push_back("--as-step-user");
  for (const auto& [name, value] : p.env) a.insert(a.end(), {"--pass", name});
  a.push_back("--");
  a.push_back(container_runtime_name(job.profile.container_runtime));
  a.insert(a.end(), job.profile.container_runtime_args.begin(), job.profile.container_runtime_args.end());
  // No capabilities and no setuid gains: an image that runs as root stays a root without the
  // kernel's privileges (mount, raw devices, ptrace of the host's processes); docs/security.md "Containers".
  a.insert(a.end(), {"run", "--rm", "--init", "--label", "srt.process=" + p.name, "--network", "host", "--ipc",
                     "host", "--group-add", "video", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"});
  for (const auto& m : mounts)
    if (m.device) a.insert(a.end(), {"--device", m.host + ":" + m.container});
  for (const auto& m : mounts)
    if (!m.device) a.insert(a.end(), {"--volume", m.host + ":" + m.container + (m.read_only ? ":ro" : "")});
  if (p.container.unlimited_memlock) a.insert(a.end(), {"--ulimit", "memlock=-1:-1"});
  a.insert(a.end(), job.profile.container_run_args.begin(), job.profile.container_run_args.end());
  a.insert(a.end(), {"--entrypoint", "", p.container.image});
  return a;
}

// The Plan's mounts, and srt-exec from the host (read-only) where the runtime shows it inside.
std::vector<Mount> runtime_mounts(const Job& job, const Process& p) {
  std::vector<Mount> m = p.container.mounts;
  if (job.profile.container_runtime == ContainerRuntime::pyxis || runs_per_step_containers(job.profile.container_runtime))
    m.push_back({job.srt_exec, kSrtExecInContainer, true});
  return m;
}

}  // namespace

std::string pyxis_container_name(const std::string& image) { return "srt-" + sha256_hex(image).substr(0, 12); }

ContainerCommand container_command(const Job& job, const Process& p) {
  ContainerCommand c;
  c.srt_exec = job.srt_exec;
  if (p.container.on_host || job.profile.container_runtime == ContainerRuntime::none) return c;
  const std::vector<Mount> mounts = runtime_mounts(job, p);
  if (job.profile.container_runtime == ContainerRuntime::bwrap) {
    c.wrapper = bwrap_prefix(mounts);
    return c;
  }
  const std::string& image = p.container.image;
  if (image.empty())
    fail("process " + p.name + " has no container image", "set model.container in the recipe");
  c.srt_exec = kSrtExecInContainer;
  if (runs_per_step_containers(job.profile.container_runtime)) {
    c.wrapper = run_prefix(job, p, mounts);
    return c;
  }
  // One container per image per node, reused by every step of the job there (pyxis keeps named
  // containers for the job's lifetime).
  c.srun_options = {"--container-image=" + image, "--container-name=" + pyxis_container_name(image),
                    "--no-container-entrypoint", "--no-container-mount-home",
                    "--container-mounts=" + join_mounts(mounts)};
  return c;
}

StepCommand clean_containers_command(const Job& job) {
  StepCommand c;
  if (!runs_per_step_containers(job.profile.container_runtime)) return c;
  std::set<std::string> nodes;
  for (const auto& p : job.plan.processes) nodes.insert(p.node);
  const std::string n = std::to_string(nodes.size());
  c.srun = {"srun", "--jobid=" + std::to_string(job.plan.job_id), "--overlap", "--nodes=" + n, "--ntasks=" + n,
            "--ntasks-per-node=1", "--nodelist=" + join(nodes, ","), "--job-name=clean_containers", "--input=none"};
  c.command = {job.srt_helper, "clean-containers", "--job-id=" + std::to_string(job.plan.job_id),
               std::string("--runtime=") + container_runtime_name(job.profile.container_runtime)};
  for (const auto& arg : job.profile.container_runtime_args) c.command.push_back("--runtime-arg=" + arg);
  return c;
}

}  // namespace srt::launch

// doctor's container-runtime check (docs/design.md "Containers"): for podman and docker, what a
// job's first step would otherwise find out: the runtime is installed and answers, which OCI
// runtime it uses and whether it runs rootless, the GPU devices exist, and the limits each `run`
// asks for are within this host's hard limits (podman's defaults are not on every host: runc then
// refuses to start any container, "setrlimit RLIMIT_NOFILE: operation not permitted").
#include <sys/resource.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "srt/cli.hpp"
#include "checks.hpp"
#include "srt/mount_policy.hpp"
#include "srt/process.hpp"

namespace srt::doctor {
namespace {

constexpr double kAskSeconds = 20;

// The value given with `--ulimit NAME=...` in the run options, or "".
std::string ulimit_given(const std::vector<std::string>& args, const std::string& name) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string v;
    if (args[i] == "--ulimit" && i + 1 < args.size()) v = args[i + 1];
    else if (args[i].rfind("--ulimit=", 0) == 0) v = args[i].substr(9);
    if (v.rfind(name + "=", 0) == 0) return v.substr(name.size() + 1);
  }
  return {};
}

}  // namespace

// A podman or docker container is started by its runtime, outside the step's cgroup: Slurm's
// device constraint (cgroup.conf ConstrainDevices) does not reach it, and it gets the profile's
// gpu_devices whole (/dev/dri: every GPU of the node). Narrowing that to the granted GPUs' render
// nodes renumbers the GPUs the container sees (ROCr enumerates only those it can open), which
// every planned GPU index would then have to follow: not done (docs/security.md "Shared nodes"). On a node
// other jobs share, that is other jobs' GPUs.
void check_gpu_isolation(Report& report, const Profile& profile) {
  if (!runs_per_step_containers(profile.container_runtime)) return;
  const std::string name = container_runtime_name(profile.container_runtime);
  if (profile.node_sharing == NodeSharing::exclusive) {
    report.ok("gpu-isolation", "exclusive nodes: a " + name + " container sees every GPU of the node, all of them the job's");
    return;
  }
  report.warn("gpu-isolation",
              "node_sharing: shared with " + name + ": each container gets every GPU of the node (gpu_devices whole), "
              "other jobs' too, and Slurm's device cgroup does not reach a container " + name + " starts",
              "give srt jobs whole nodes (node_sharing: exclusive), or use pyxis, whose containers stay in the step's cgroup");
}

void check_container_runtime(Report& report, const Profile& profile) {
  const ContainerRuntime r = profile.container_runtime;
  const std::string name = container_runtime_name(r);
  if (!runs_per_step_containers(r)) {
    report.ok("container-runtime", name + " (the profile's container_runtime; nothing of podman or docker to check)");
    return;
  }
  const std::string path = sys::find_program(name);
  if (path.empty()) {
    report.fail("container-runtime", name + " is not installed on this node (profile container_runtime: " + name + ")",
                "install " + name + " on every node, or set container_runtime to what the nodes run");
    return;
  }
  std::vector<std::string> base = {path};
  base.insert(base.end(), profile.container_runtime_args.begin(), profile.container_runtime_args.end());
  auto ask = [&](std::vector<std::string> tail, int* status) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), tail.begin(), tail.end());
    return helper::trim_end(sys::run_capture(argv, kAskSeconds, status, true));
  };
  int status = 0;
  const std::string version = ask({"version", "--format", "{{.Client.Version}}"}, &status);
  const std::string info = r == ContainerRuntime::podman
                               ? ask({"info", "--format", "{{.Host.OCIRuntime.Name}} rootless={{.Host.Security.Rootless}}"}, &status)
                               : ask({"info", "--format", "{{.DefaultRuntime}} {{.SecurityOptions}}"}, &status);
  if (status != 0) {
    report.fail("container-runtime", name + " " + version + " does not answer `info`: " + info,
                r == ContainerRuntime::docker ? "start the docker daemon on this node" : "run `" + name + " info` as the job's user and fix what it says");
    return;
  }
  std::vector<std::string> details = {"binary: " + path, "version: " + version, "runtime: " + info};
  // Who is root (docs/security.md "Container runtimes", docs/INSTALL.md "Container runtimes").
  const bool rootless = r == ContainerRuntime::podman ? info.find("rootless=true") != std::string::npos
                                                      : info.find("name=rootless") != std::string::npos;
  if (const std::string refused = container_runtime_refusal(profile, rootless); !refused.empty()) {
    report.add(Check{"container-runtime", Status::fail, name + " " + version + ": " + refused,
                     "see docs/INSTALL.md \"Container runtimes\"", details});
    return;
  }
  details.push_back(std::string("mode: ") +
                    (rootless ? "rootless (containers live in each job user's own store)"
                              : r == ContainerRuntime::docker ? "rootful daemon; the profile trusts job users as root (docker_users_are_root)"
                                                              : "rootful (root's store)"));
  details.push_back(profile.container_user == "job"
                        ? "engine user: the job's (--user; an image whose setup installs packages needs root)"
                        : "engine user: the image's own (root in most images, without capabilities: --cap-drop ALL)");
  std::vector<std::string> problems;
  for (const auto& [host, inside] : profile.gpu_devices) {
    struct stat st {};
    if (::stat(host.c_str(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISDIR(st.st_mode)))
      problems.push_back("GPU device " + host + " (for " + inside + ") is not on this node");
    else details.push_back("device: " + host + " -> " + inside);
  }
  const struct { const char* flag; int resource; rlim_t podman_default; } limits[] = {
      {"nofile", RLIMIT_NOFILE, 1048576}, {"nproc", RLIMIT_NPROC, 4194304}};
  for (const auto& l : limits) {
    rlimit lim{};
    ::getrlimit(l.resource, &lim);
    const std::string hard = lim.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(lim.rlim_max);
    const std::string given = ulimit_given(profile.container_run_args, l.flag);
    details.push_back(std::string("ulimit ") + l.flag + ": " + (given.empty() ? "runtime default" : given) +
                      " (this host's hard limit " + hard + ")");
    if (!given.empty() || lim.rlim_max == RLIM_INFINITY || r != ContainerRuntime::podman) continue;
    if (l.podman_default > lim.rlim_max)
      problems.push_back(std::string("podman's default ") + l.flag + " " + std::to_string(l.podman_default) + " is above this host's hard limit " +
                         hard + ": runc refuses to start a container (setrlimit: operation not permitted); add --ulimit, " +
                         l.flag + "=N:N to container_run_args, N at most " + hard);
  }
  if (!problems.empty()) {
    Check c{"container-runtime", Status::fail, name + " " + version + ": " + problems.front(), "", details};
    for (std::size_t i = 1; i < problems.size(); ++i) c.details.push_back("also: " + problems[i]);
    c.fix = "fix the profile's gpu_devices or container_run_args, or the node";
    report.add(c);
    return;
  }
  report.ok("container-runtime", name + " " + version + " (" + info + ")", details);
}

}  // namespace srt::doctor

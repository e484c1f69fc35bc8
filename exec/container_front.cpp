// Why srt-exec runs on the host in front of `podman run` / `docker run`:
//   - the name: srt-<job>-<step> is unique on a node (one step, one node, one container) and
//     tells an admin whose it is; only the step itself knows its step id.
//   - the environment: the SPANK plugin sets the step's binding, Mooncake and KV-event
//     variables in the task (task_init), after the launcher wrote this argv; a container gets
//     only what `run` is told, so every variable is named here with --env NAME (the client
//     takes the value from its own environment: no value on a command line `ps` shows).
//     The host's own (PATH, HOME, LD_LIBRARY_PATH, ...) would break the image: they stay
//     out unless the Plan set them (--pass).
#include "container_front.hpp"

#include <algorithm>
#include <stdexcept>

namespace srt_exec {
namespace {

// The host's, not the step's: the image has its own. What enroot also leaves to the image.
constexpr const char* kHostOnly[] = {"PATH",  "HOME",    "PWD",    "OLDPWD",          "SHELL",      "SHLVL",
                                     "HOSTNAME", "TMPDIR", "TERM", "LD_LIBRARY_PATH", "LD_PRELOAD", "USER",
                                     "LOGNAME", "MAIL",    "_"};

bool valid_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
}

std::string value_of(const std::vector<std::string>& environment, const std::string& name) {
  for (const auto& entry : environment)
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
  return {};
}

}  // namespace

std::vector<std::string> container_argv(const std::vector<std::string>& argv, const std::vector<std::string>& pass,
                                        const std::vector<std::string>& environment, const std::string& user,
                                        bool rootless) {
  const auto run = std::find(argv.begin() + (argv.empty() ? 0 : 1), argv.end(), std::string("run"));
  if (run == argv.end()) throw std::runtime_error("no `run` in the container command");
  const std::string job = value_of(environment, "SLURM_JOB_ID");
  std::string step = value_of(environment, "SLURM_STEP_ID");
  if (step.empty()) step = value_of(environment, "SLURM_STEPID");
  if (job.empty() || step.empty())
    throw std::runtime_error("SLURM_JOB_ID or SLURM_STEP_ID is not set: srt-exec --container runs in a Slurm step");
  std::vector<std::string> insert = {"--name", "srt-" + job + "-" + step, "--label", "srt.job=" + job};
  // The node, for clean-containers where several nodes share one container store (the lab's
  // nodes are namespaces of one host): each removes its own.
  const std::string node = value_of(environment, "SLURMD_NODENAME");
  if (!node.empty()) insert.insert(insert.end(), {"--label", "srt.node=" + node});
  // podman's own flag (docs.podman.io, podman-run --userns): docker has no such mapping.
  const std::string runtime = argv.empty() ? "" : argv.front().substr(argv.front().rfind('/') + 1);
  if (!user.empty() && rootless && runtime == "podman") insert.push_back("--userns=keep-id");
  if (!user.empty()) insert.insert(insert.end(), {"--user", user});
  for (const auto& entry : environment) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    const bool host_only = std::any_of(std::begin(kHostOnly), std::end(kHostOnly),
                                       [&](const char* h) { return name == h; });
    const bool passed = std::find(pass.begin(), pass.end(), name) != pass.end();
    // Exported shell functions (BASH_FUNC_f%%) and other odd names are not variables to pass.
    if ((host_only && !passed) || !valid_name(name)) continue;
    insert.insert(insert.end(), {"--env", name});
  }
  std::vector<std::string> out(argv.begin(), run + 1);
  out.insert(out.end(), insert.begin(), insert.end());
  out.insert(out.end(), run + 1, argv.end());
  return out;
}

}  // namespace srt_exec

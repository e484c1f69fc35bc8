// srt/runtime_trust.hpp.
#include "srt/runtime_trust.hpp"

#include "srt/mount_policy.hpp"
#include "srt/process.hpp"

namespace srt::sys {

bool docker_daemon_rootless(const Profile& profile) {
  const std::string path = find_program("docker");
  if (path.empty()) return false;
  std::vector<std::string> argv = {path};
  argv.insert(argv.end(), profile.container_runtime_args.begin(), profile.container_runtime_args.end());
  argv.insert(argv.end(), {"info", "--format", "{{json .SecurityOptions}}"});
  int status = -1;
  const std::string out = run_capture(argv, 20, &status);
  return status == 0 && out.find("name=rootless") != std::string::npos;
}

std::string runtime_refusal_here(const Profile& profile) {
  if (profile.container_runtime != ContainerRuntime::docker || profile.docker_users_are_root) return "";
  return container_runtime_refusal(profile, docker_daemon_rootless(profile));
}

}  // namespace srt::sys

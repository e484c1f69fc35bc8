// Whether the profile's container runtime may run on this node, asked of the runtime itself:
// launch refuses a job and doctor fails the node with the same words (srt/mount_policy.hpp).
#pragma once
#include <string>

#include "srt/profile.hpp"

namespace srt::sys {

// docker: whether the daemon the profile's container_runtime_args reach runs rootless (`docker
// info` lists "name=rootless" in its SecurityOptions). False for a daemon that does not answer.
bool docker_daemon_rootless(const Profile& profile);

// "" when the profile's runtime may run here, else what is wrong and what to do.
std::string runtime_refusal_here(const Profile& profile);

}  // namespace srt::sys

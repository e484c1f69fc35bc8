// What a recipe may mount into its containers and which container runtimes a profile may use,
// decided before anything runs (docs/security.md "Recipes and snapshots", "Container runtimes").
// A container whose image runs as root (most serving images) is root over every host path
// mounted into it: a recipe mount of / or /etc gives its author the node, a device path its disk.
#pragma once
#include <string>

#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt {

// The recipe's container_mounts and extra_mount against the profile: a host path must be
// absolute and without "..", never a device (under /dev: devices come from the profile), and
// either under one of the profile's recipe_mount_prefixes or, when it lists none, outside the
// node's system directories and the results root. Throws srt::Error with one diagnostic per
// refused mount, at its key.
void check_recipe_mounts(const Recipe& recipe, const Profile& profile);

// That rule for one host path: "" when a recipe may mount it, else why not.
std::string recipe_mount_refusal(std::string host, const Profile& profile);

// docker's daemon runs as root unless it is a rootless one; whoever reaches a rootful daemon's
// socket is root on the node (https://docs.docker.com/engine/security/#docker-daemon-attack-surface).
// "" when the profile's runtime may run; else what is wrong and what to do. `daemon_rootless`:
// what `docker info` says of the daemon the job would use.
std::string container_runtime_refusal(const Profile& profile, bool daemon_rootless);

// Whether a job's user can become root on the node through the profile's runtime (a rootful
// docker the profile trusts): then a file or directory owned by root proves nothing.
bool runtime_gives_users_root(const Profile& profile);

}  // namespace srt

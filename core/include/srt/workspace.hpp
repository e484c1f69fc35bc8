// InferenceX's per-run workspace: its driver sets INFMAX_WORKSPACE to the run's copy of the
// InferenceX checkout, and srtctl mounts it at /infmax-workspace in every container
// (docs/inferencex.md "The run's workspace"; srtctl v2.18 RuntimeContext.from_config). The custom
// benchmark commands, the eval scripts and the AgentX aggregates the collector reads all live
// there. srt-spank adds it to the submitted recipe as a container_mounts entry: it replaces the
// profile's default mount of that path in the Plan (job-level mounts win, as in srtctl), and the
// profile's mount policy (srt/mount_policy.hpp) judges it as any recipe mount.
#pragma once
#include <string>

#include "srt/document.hpp"
#include "srt/profile.hpp"

namespace srt {

inline constexpr const char* kWorkspaceInContainer = "/infmax-workspace";

struct WorkspaceMount {
  bool mount = false;   // add container_mounts[workspace] = /infmax-workspace
  std::string note;     // why it is not added although given (the recipe mounts that path itself)
  std::string problem;  // the value may not be mounted (the profile's rule for recipe mounts)
};

// What to do with INFMAX_WORKSPACE (`workspace`, "" = unset) for the recipe document
// `recipe_root` (the one variant, as submitted) under `profile`'s mount policy: mount it, or say
// why not.
WorkspaceMount workspace_mount(const Json& recipe_root, const std::string& workspace, const Profile& profile);

// recipe_root.container_mounts[workspace] = "/infmax-workspace".
void add_workspace_mount(Json& recipe_root, const std::string& workspace);

}  // namespace srt

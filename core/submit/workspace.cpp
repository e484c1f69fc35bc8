#include "srt/workspace.hpp"

#include "srt/container_spec.hpp"
#include "srt/document.hpp"
#include "srt/mount_policy.hpp"

namespace srt {

WorkspaceMount workspace_mount(const Json& recipe_root, const std::string& workspace, const Profile& profile) {
  WorkspaceMount w;
  if (workspace.empty()) return w;
  // The profile's rule for any recipe mount: the value comes from the submitting user's
  // environment, as a recipe does, and must not reach what a recipe may not.
  if (const std::string why = recipe_mount_refusal(workspace, profile); !why.empty()) {
    w.problem = "INFMAX_WORKSPACE=" + workspace + ": " + why;
    return w;
  }
  if (const auto m = recipe_root.find("container_mounts"); m != recipe_root.end() && m->is_object())
    for (const auto& [host, inside] : m->items())
      if (inside.is_string() && inside.get<std::string>() == kWorkspaceInContainer) {
        w.note = "INFMAX_WORKSPACE=" + workspace + " not mounted: the recipe mounts " + host + " at " +
                 kWorkspaceInContainer + " itself (" + join_path("container_mounts", host) + ")";
        return w;
      }
  if (const auto e = recipe_root.find("extra_mount"); e != recipe_root.end() && e->is_array())
    for (const auto& spec : *e)
      if (spec.is_string() && parse_mount(spec.get<std::string>()).container == kWorkspaceInContainer) {
        w.note = "INFMAX_WORKSPACE=" + workspace + " not mounted: the recipe's extra_mount " + spec.get<std::string>() +
                 " mounts " + kWorkspaceInContainer + " itself";
        return w;
      }
  w.mount = true;
  return w;
}

void add_workspace_mount(Json& recipe_root, const std::string& workspace) {
  Json& mounts = recipe_root["container_mounts"];
  if (!mounts.is_object()) mounts = Json::object();
  mounts[workspace] = kWorkspaceInContainer;
}

}  // namespace srt

// Shared by the implementation's per-context files. spank.h is included only under spank/.
#pragma once
#include <string>
#include <vector>

extern "C" {
#include "../impl_abi.h"
}

#include "srt/profile.hpp"

namespace srt::spank_impl {

// plugstack.conf arguments: `profile=PATH impl=PATH cache_dir=DIR topology=XML`.
struct PluginConfig {
  std::string profile_path;   // "" = the built-in default path, or the built-in profile
  std::string cache_dir;      // "" = the profile's topology_cache_dir
  std::string topology_xml;   // an hwloc XML to use instead of live discovery (labs, tests)
};
PluginConfig parse_config(const srt_loader_state& state);

// The profile the plugin uses on both sides; never the user's environment, so the submit host and
// the nodes read the same file (the snapshot's digest proves it).
Profile load_plugin_profile(const PluginConfig& config);

// Messages: prefixed "srt: ", one line each, to the right place for the context.
void error_lines(const std::string& text);

int submit_side(spank_t sp, const srt_loader_state& state);        // init_post_opt, local/allocator
int node_user_init(spank_t sp, const srt_loader_state& state);     // remote, as the user
int node_task_init(spank_t sp, const srt_loader_state& state);     // remote, in each task

}  // namespace srt::spank_impl

// Shared by the implementation's per-context files. Slurm's spank.h is included only under
// spank/.
#pragma once
#include <exception>
#include <string>
#include <vector>

extern "C" {
#include "../impl_abi.h"
}

#include "srt/profile.hpp"
#include "srt/snapshot.hpp"

namespace srt::spank_impl {

// plugstack.conf arguments: `profile=PATH impl=PATH cache_dir=DIR topology=XML`.
struct PluginConfig {
  std::string profile_path;   // "" = the built-in default path, or the built-in profile
  std::string cache_dir;      // "" = the profile's topology_cache_dir, and kDefaultCacheDir for the profile copy
  std::string topology_xml;   // an hwloc XML to use instead of live discovery (labs, tests)
  std::string impl_path;      // the submit side's library (the loader's impl=, else the installed one)
};
PluginConfig parse_config(const srt_loader_state& state);

// The profile file the plugin uses on both sides ("" = none: the built-in default); never the
// user's environment, so the submit host and the nodes read the same file (the snapshot's digest
// proves it). The submit side parses it; a node hashes it and reads root's parsed copy
// (node_profile).
std::string plugin_profile_path(const PluginConfig& config);

// The profile a node plans the job `snapshot_digest` names with, from its own file at `path`
// ("" = the built-in default): the file's digest must be that one (else srt::Error naming
// `where`, as before), and its document comes from root's parsed copy in the cache directory,
// else from the submit side's library reading the file (impl_abi.h: srt_profile_copy). Never from
// the snapshot. A miss of the copy goes to `notes` (the job runs; the step spent milliseconds).
Profile node_profile(const PluginConfig& config, const std::string& path, const Snapshot& snap,
                     const std::string& where, std::vector<std::string>& notes);

// Messages: prefixed "srt: ", one line each, to the right place for the context.
void error_lines(const std::string& text);

// The srt-spank version both sides were built as: a node refuses a snapshot of another.
inline constexpr const char* kPackageVersion = SRT_VERSION;

// Each library's callbacks by name: the submit side's (init_post_opt in the local and allocator
// contexts) and a node's (user_init as the user, task_init in each task; remote context only).
int submit_dispatch(const std::string& callback, spank_t sp, const srt_loader_state& state);
int node_dispatch(const std::string& callback, spank_t sp, const srt_loader_state& state);

// The body of srt_impl_callback in both libraries: the ABI check, and no exception crosses into
// Slurm (an escaping exception aborts srun or slurmstepd).
template <typename Dispatch>
int guarded_callback(const char* callback, const srt_loader_state* state, Dispatch dispatch) {
  try {
    if (!callback || !state || state->abi != SRT_IMPL_ABI) return -1;
    return dispatch(std::string(callback), *state);
  } catch (const std::exception& e) {
    error_lines(std::string("internal error in ") + callback + ": " + e.what());
  } catch (...) {
    error_lines(std::string("internal error in ") + callback);
  }
  return -1;
}

}  // namespace srt::spank_impl

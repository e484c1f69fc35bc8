// Slurm's plugstack.conf as Slurm reads it (src/common/plugstack.c, Slurm
// 22.05), so srt-helper doctor can say whether spank_srt.so is reached, from which file and line,
// and with which arguments. Grammar: "required|optional PATH [ARG...]" or "include GLOB"; '#'
// starts a comment anywhere; words split on whitespace only; a relative include glob resolves
// against the including file's directory; an include that matches nothing is not an error.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace srt {

struct PlugstackEntry {
  std::string kind;               // "required", "optional" or "include"
  std::string path;               // plugin path, or the include glob as written
  std::vector<std::string> args;  // plugin arguments
  std::string file;               // where the line is
  int line = 0;                   // 1-based
};

// One file's lines. Throws srt::Error (file:line) on a line Slurm would refuse: an unknown
// first word, or a plugin/include without a path.
std::vector<PlugstackEntry> parse_plugstack(const std::string& text, const std::string& file);

// The file system, injected so the walk is testable without files.
struct PlugstackFs {
  std::function<std::optional<std::string>(const std::string& path)> read;  // nullopt: unreadable
  std::function<std::vector<std::string>(const std::string& pattern)> glob;  // sorted matches
};
// The machine's: system_plugstack_fs() in sys/ (srt/system_plugstack.hpp).

struct PlugstackWalk {
  std::vector<PlugstackEntry> plugins;  // every required/optional line reached, in load order
  std::vector<std::string> files;       // every file read, in order
  std::vector<std::string> problems;    // unreadable files, include loops (the walk goes on)
};

// Follows includes from `path` (as Slurm does, depth-first, in glob order), at most 16 deep.
// A missing top-level file is a problem, not an exception: Slurm then simply loads no plugin.
PlugstackWalk walk_plugstack(const std::string& path, const PlugstackFs& fs);

// The lines among `walk.plugins` whose file name is `plugin_file` (e.g. "spank_srt.so").
std::vector<PlugstackEntry> find_plugin(const PlugstackWalk& walk, const std::string& plugin_file);

// Whether spank_srt.so accepts `arg` on its plugstack.conf line (profile=, cache_dir=,
// topology=, impl=, timing): the plugin refuses any other and doctor reports it, from this one list.
bool is_srt_plugin_argument(const std::string& arg);
inline constexpr const char* kSrtPluginArguments = "profile=PATH, cache_dir=DIR, topology=XML, impl=PATH or timing";

// "profile=/etc/srt/cluster.yaml" -> value of `key` among args, or nullopt.
std::optional<std::string> plugin_argument(const PlugstackEntry& entry, const std::string& key);

}  // namespace srt

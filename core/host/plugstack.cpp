#include "srt/plugstack.hpp"

#include <sstream>

#include "srt/error.hpp"

namespace srt {
namespace {

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

constexpr int kMaxIncludeDepth = 16;

void walk(const std::string& path, const PlugstackFs& fs, int depth, std::vector<std::string>& stack,
          PlugstackWalk& out) {
  for (const std::string& open : stack)
    if (open == path) {
      out.problems.push_back(path + ": included again from itself (an include loop); Slurm would loop too");
      return;
    }
  if (depth > kMaxIncludeDepth) {
    out.problems.push_back(path + ": includes nested deeper than " + std::to_string(kMaxIncludeDepth));
    return;
  }
  const auto text = fs.read(path);
  if (!text) {
    out.problems.push_back(path + ": cannot be read");
    return;
  }
  out.files.push_back(path);
  stack.push_back(path);
  for (const PlugstackEntry& e : parse_plugstack(*text, path)) {
    if (e.kind != "include") {
      out.plugins.push_back(e);
      continue;
    }
    const std::string pattern = e.path.front() == '/' ? e.path : dirname_of(path) + "/" + e.path;
    for (const std::string& match : fs.glob(pattern)) walk(match, fs, depth + 1, stack, out);
  }
  stack.pop_back();
}

}  // namespace

std::vector<PlugstackEntry> parse_plugstack(const std::string& text, const std::string& file) {
  std::vector<PlugstackEntry> entries;
  std::istringstream in(text);
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    std::istringstream words(raw.substr(0, raw.find('#')));
    PlugstackEntry e;
    if (!(words >> e.kind)) continue;
    e.file = file;
    e.line = number;
    const auto where = [&] { return Diagnostic{file, {number, 0}, "", "", ""}; };
    if (e.kind != "required" && e.kind != "optional" && e.kind != "include") {
      Diagnostic d = where();
      d.message = "'" + e.kind + "' is not a plugstack keyword; Slurm refuses this file";
      d.hint = "start the line with required, optional or include";
      throw Error(d);
    }
    if (!(words >> e.path)) {
      Diagnostic d = where();
      d.message = "'" + e.kind + "' without a path";
      d.hint = e.kind == "include" ? "write include /etc/slurm/plugstack.conf.d/*.conf"
                                   : "write " + e.kind + " /path/to/plugin.so [ARG...]";
      throw Error(d);
    }
    for (std::string arg; words >> arg;) e.args.push_back(arg);
    entries.push_back(std::move(e));
  }
  return entries;
}

PlugstackWalk walk_plugstack(const std::string& path, const PlugstackFs& fs) {
  PlugstackWalk out;
  std::vector<std::string> stack;
  walk(path, fs, 0, stack, out);
  return out;
}

std::vector<PlugstackEntry> find_plugin(const PlugstackWalk& walk, const std::string& plugin_file) {
  std::vector<PlugstackEntry> found;
  for (const PlugstackEntry& e : walk.plugins)
    if (basename_of(e.path) == plugin_file) found.push_back(e);
  return found;
}

bool is_srt_plugin_argument(const std::string& arg) {
  for (const char* key : {"profile=", "cache_dir=", "topology=", "impl="})
    if (arg.rfind(key, 0) == 0) return true;
  return arg == "timing";
}

std::optional<std::string> plugin_argument(const PlugstackEntry& entry, const std::string& key) {
  const std::string prefix = key + "=";
  for (const std::string& a : entry.args)
    if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
  return std::nullopt;
}

}  // namespace srt

// Does Slurm on this node load spank_srt.so, from which plugstack line, and would the plugin
// find its implementation? Loads both the way Slurm does (dlopen, RTLD_NOW).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <sstream>

#include "checks.hpp"
#include "srt/error.hpp"
#include "srt/plugstack.hpp"
#include "srt/slurm_config.hpp"
#include "srt/system_plugstack.hpp"

extern "C" {
#include "impl_abi.h"
}

#ifndef SRT_DEFAULT_PLUGIN
#define SRT_DEFAULT_PLUGIN "/usr/lib64/slurm/spank_srt.so"
#endif
#ifndef SRT_DEFAULT_IMPL
#define SRT_DEFAULT_IMPL "/usr/lib64/slurm/srt_spank_impl.so"
#endif

namespace srt::doctor {
namespace {

struct DlClose {
  void operator()(void* handle) const { ::dlclose(handle); }
};
using DlHandle = std::unique_ptr<void, DlClose>;

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// Slurm resolves a relative plugin path against PluginDir, then leaves it to dlopen.
std::string resolve_plugin(const std::string& path, const std::string& plugin_dir) {
  if (path.empty() || path.front() == '/') return path;
  for (const std::string& dir : split(plugin_dir, ':'))
    if (exists(dir + "/" + path)) return dir + "/" + path;
  return path;
}

// The plugin expects the spank_* and slurm_* functions every Slurm process provides through
// libslurmfull.so, and it is linked with -z now: without them dlopen fails here but not in
// Slurm. Kept loaded (RTLD_GLOBAL) for the rest of the run.
void load_slurm_runtime(const SlurmNode& slurm, const std::string& plugin_path) {
  static DlHandle runtime;
  if (runtime) return;
  std::vector<std::string> candidates;
  for (const std::string& dir : split(slurm.plugin_dir, ':')) candidates.push_back(dir + "/libslurmfull.so");
  candidates.push_back(dirname_of(plugin_path) + "/libslurmfull.so");
  candidates.push_back("/usr/lib/x86_64-linux-gnu/slurm-wlm/libslurmfull.so");  // Debian
  candidates.push_back("/usr/lib64/slurm/libslurmfull.so");                     // SchedMD RPMs
  for (const std::string& c : candidates)
    if (exists(c)) {
      runtime.reset(::dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL));
      if (runtime) return;
    }
}

std::string dl_error() {
  const char* e = ::dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

PluginLine check_plugstack(Report& report, const SlurmNode& slurm) {
  PluginLine line;
  line.plugin_path = SRT_DEFAULT_PLUGIN;
  line.impl_path = SRT_DEFAULT_IMPL;
  const std::string include_fix = "add 'include /etc/slurm/plugstack.conf.d/*.conf' to " + slurm.plugstack +
                                  " (the package installs srt.conf there), then restart slurmd";
  PlugstackWalk walk;
  try {
    walk = walk_plugstack(slurm.plugstack, system_plugstack_fs());
  } catch (const Error& e) {
    report.fail("plugstack", e.what(), "fix that line: Slurm refuses the whole plugin stack");
    return line;
  }
  const auto lines = find_plugin(walk, "spank_srt.so");
  std::string problems;
  for (const std::string& p : walk.problems) problems += "; " + p;
  if (lines.empty()) {
    report.fail("plugstack", "no line of " + slurm.plugstack + " or the files it includes loads spank_srt.so" + problems,
                include_fix);
    return line;
  }
  if (lines.size() > 1) {
    std::string where;
    for (const auto& l : lines) where += (where.empty() ? "" : ", ") + l.file + ":" + std::to_string(l.line);
    report.fail("plugstack", "spank_srt.so is listed " + std::to_string(lines.size()) + " times (" + where +
                                 "); Slurm refuses to load a plugin twice",
                "keep only the line in /etc/slurm/plugstack.conf.d/srt.conf");
    return line;
  }
  const PlugstackEntry& e = lines.front();
  line.found = true;
  line.plugin_path = resolve_plugin(e.path, slurm.plugin_dir);
  line.impl_path = plugin_argument(e, "impl").value_or(SRT_DEFAULT_IMPL);
  line.profile_path = plugin_argument(e, "profile").value_or("");
  line.cache_dir = plugin_argument(e, "cache_dir").value_or("");
  const std::string where = e.file + ":" + std::to_string(e.line);
  for (const std::string& arg : e.args)
    if (!is_srt_plugin_argument(arg)) {
      report.fail("plugstack", where + ": unknown argument '" + arg + "' (srt jobs would fail)",
                  std::string("use only ") + kSrtPluginArguments);
      return line;
    }
  if (e.kind == "optional")
    report.warn("plugstack", where + " loads " + e.path + " as optional: node-side errors will not fail srt jobs",
                "write 'required' unless blocking every job on a host without the plugin is worse");
  else
    report.ok("plugstack", where + ": required " + e.path + (problems.empty() ? "" : problems));
  return line;
}

void check_plugin_loads(Report& report, const SlurmNode& slurm, const PluginLine& line) {
  const std::string& path = line.plugin_path;
  load_slurm_runtime(slurm, path);
  DlHandle plugin(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!plugin) {
    report.fail("plugin", "cannot load " + path + ": " + dl_error(),
                "install slurm-spank-srt on this node (Slurm refuses every job while a required plugin is missing)");
    return;
  }
  const auto* name = static_cast<const char*>(::dlsym(plugin.get(), "plugin_name"));
  const auto* type = static_cast<const char*>(::dlsym(plugin.get(), "plugin_type"));
  const auto* version = static_cast<const std::uint32_t*>(::dlsym(plugin.get(), "plugin_version"));
  const bool init = ::dlsym(plugin.get(), "slurm_spank_init") != nullptr;
  if (!name || !type || !version || !init) {
    report.fail("plugin", path + " does not export plugin_name, plugin_type, plugin_version and slurm_spank_init",
                "this is not srt-spank's loader: reinstall slurm-spank-srt");
    return;
  }
  const SlurmSeries built = series_of_version_number(*version);
  const std::string what = path + " loads (plugin_name " + name + ", plugin_type " + type + ", built for Slurm " +
                           to_string(built) + ")";
  if (std::string(type) != "spank") {
    report.fail("plugin", what + ": Slurm requires plugin_type \"spank\"", "reinstall slurm-spank-srt");
    return;
  }
  const auto running = parse_slurm_version(slurm.version);
  if (!running) {
    report.warn("plugin", what + "; cannot tell which Slurm runs here (scontrol --version failed: not in PATH, or no slurm.conf)",
                "run the doctor on a node with Slurm configured (SLURM_CONF)");
    return;
  }
  if (*running != built) {
    report.fail("plugin", what + " but this node runs Slurm " + slurm.version + ": Slurm refuses it",
                "install the slurm-spank-srt package built for Slurm " + to_string(*running) + " (Release .sl" +
                    std::to_string(running->major) + (running->minor < 10 ? "0" : "") +
                    std::to_string(running->minor) + "), then restart slurmd");
    return;
  }
  report.ok("plugin", what + "; this node runs Slurm " + slurm.version);
}

// Both libraries the loader dlopens: impl= (the submit side's) and, beside it, the one every
// slurmstepd of an srt job loads (the node side's: docs/design.md "The SPANK plugin").
void check_implementation(Report& report, const PluginLine& line) {
  std::string loaded;
  for (const std::string& path : {line.impl_path, dirname_of(line.impl_path) + "/srt_spank_node.so"}) {
    DlHandle impl(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (!impl) {
      report.fail("implementation", "cannot load " + path + ": " + dl_error() + " (every srt job would fail)",
                  "install the libraries it needs (hwloc, yaml-cpp, libstdc++) or fix impl= in the plugstack line");
      return;
    }
    const auto* abi = static_cast<const int*>(::dlsym(impl.get(), "srt_impl_abi"));
    if (!abi || *abi != SRT_IMPL_ABI || !::dlsym(impl.get(), SRT_IMPL_ENTRY)) {
      report.fail("implementation", path + " is not the implementation this srt-helper was built with (ABI " +
                                        std::to_string(SRT_IMPL_ABI) + ")",
                  "reinstall slurm-spank-srt so the loader, implementation and helper come from one build");
      return;
    }
    loaded += (loaded.empty() ? "" : " and ") + path;
  }
  report.ok("implementation", loaded + " load (ABI " + std::to_string(SRT_IMPL_ABI) + ")");
}

}  // namespace srt::doctor

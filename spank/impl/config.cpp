#include <unistd.h>

#include <sstream>

#include "impl.hpp"
#include "srt/error.hpp"
#include "srt/plugstack.hpp"

#ifndef SRT_DEFAULT_IMPL
#define SRT_DEFAULT_IMPL "/usr/lib64/slurm/srt_spank_impl.so"
#endif
#ifndef SRT_DEFAULT_PROFILE
#define SRT_DEFAULT_PROFILE "/etc/srt/cluster.yaml"
#endif

namespace srt::spank_impl {

PluginConfig parse_config(const srt_loader_state& state) {
  PluginConfig c;
  for (int i = 0; i < state.argc; ++i) {
    const std::string arg = state.argv[i] ? state.argv[i] : "";
    if (arg.rfind("profile=", 0) == 0) c.profile_path = arg.substr(8);
    else if (arg.rfind("cache_dir=", 0) == 0) c.cache_dir = arg.substr(10);
    else if (arg.rfind("topology=", 0) == 0) c.topology_xml = arg.substr(9);
    else if (arg.rfind("impl=", 0) == 0) c.impl_path = arg.substr(5);  // the loader's, read here too
    else if (!is_srt_plugin_argument(arg))  // timing is the loader's
      fail("unknown plugstack.conf argument '" + arg + "' for spank_srt.so", std::string("use ") + kSrtPluginArguments);
  }
  if (c.impl_path.empty()) c.impl_path = SRT_DEFAULT_IMPL;
  return c;
}

std::string plugin_profile_path(const PluginConfig& config) {
  if (!config.profile_path.empty()) return config.profile_path;
  if (::access(SRT_DEFAULT_PROFILE, F_OK) == 0) return SRT_DEFAULT_PROFILE;
  return {};
}

void error_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) slurm_error("srt: %s", line.c_str());
}

}  // namespace srt::spank_impl

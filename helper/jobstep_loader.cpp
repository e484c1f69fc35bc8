// Loads srt-helper-jobstep.so for the subcommands it holds (srt/jobstep_abi.hpp).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/jobstep_abi.hpp"
#include "srt/error.hpp"

namespace srt::helper {

namespace {

// The subcommand ARGV names: its first argument that is not an option ("" for none). The
// top-level options (--help, --version) take no value, so nothing else can come first.
std::string subcommand_of(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') return argv[i];
  return "";
}

// Beside srt-helper in a build tree, in the libexec directory when installed. Only these two:
// never a path from the environment, since the module runs in every batch step.
std::string module_path() {
  const std::string dir = executable_dir();
  if (!dir.empty()) {
    const std::string beside = dir + "/" + kJobstepModule;
    if (::access(beside.c_str(), R_OK) == 0) return beside;
  }
  return std::string(SRT_LIBEXECDIR) + "/" + kJobstepModule;
}

}  // namespace

int* add_jobstep_commands(CLI::App& app, int argc, char** argv) {
  const std::string sub = subcommand_of(argc, argv);
  const bool needed = std::find(kJobstepCommands.begin(), kJobstepCommands.end(), sub) != kJobstepCommands.end();
  if (!needed && !sub.empty()) return nullptr;
  const std::string path = module_path();
  void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto* entry = module ? reinterpret_cast<JobstepEntry>(::dlsym(module, kJobstepEntry)) : nullptr;
  if (!entry) {
    const char* why = ::dlerror();
    if (needed) {
      exit_code = 2;
      fail("srt-helper " + sub + " cannot load its module: " + (why ? why : path + ": no " + kJobstepEntry),
           "install srt-spank's package whole (or build the srt_helper_jobstep target beside srt-helper)");
    }
    std::fprintf(stderr, "srt-helper: warning: launch, kv-relay and kv-watch are not listed: %s\n",
                 why ? why : (path + ": no " + kJobstepEntry).c_str());
    return nullptr;
  }
  // Never unloaded: the subcommands' callbacks are the module's code.
  return entry(&app);
}

}  // namespace srt::helper

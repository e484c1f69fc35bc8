// srtctl: srt-spank's stand-in for NVIDIA srt-slurm's `srtctl`, for the subcommands srt-spank
// implements. It is srt-helper itself under another name (a symbolic link, installed under
// libexec/srt-spank/bin and never as /usr/bin/srtctl: a real srtctl on the same host is not
// shadowed unless a site puts that directory first on a runner's PATH, docs/inferencex.md).
// InferenceX's srt driver runs `srtctl apply ... --json --yes` once per job; a shell wrapper in
// front of srt-helper cost that call 4.7 ms of its ~40 (docs/performance.md).
//   apply    -> srt-helper apply     (srtctl's apply flags and --json manifest)
//   dry-run  -> srt-helper validate  (--file spelled -f, as validate takes it)
//   migrate  -> srt-helper migrate
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"

namespace srt::helper {
namespace {

constexpr const char* kProvided = "apply, dry-run, migrate";

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: srtctl {apply,dry-run,migrate} ...\n"
               "srt-spank's srtctl (srt-helper %s): it provides %s;\n"
               "every other srtctl subcommand belongs to NVIDIA srt-slurm's srtctl.\n",
               SRT_VERSION, kProvided);
}

}  // namespace

bool invoked_as_srtctl(const char* argv0) {
  if (!argv0) return false;
  const char* base = std::strrchr(argv0, '/');
  return std::strcmp(base ? base + 1 : argv0, "srtctl") == 0;
}

std::optional<int> srtctl_front(int argc, char** argv, std::vector<std::string>& args) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "-h" || cmd == "--help") {
    usage(stdout);
    return 0;
  }
  if (cmd.empty()) {
    usage(stderr);
    return 2;
  }
  if (cmd == "--version") {
    std::printf("srtctl (srt-spank) %s\n", SRT_VERSION);
    return 0;
  }
  args = {"srt-helper"};
  if (cmd == "apply" || cmd == "migrate") {
    args.insert(args.end(), argv + 1, argv + argc);
    return std::nullopt;
  }
  if (cmd == "dry-run") {
    args.push_back("validate");
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--file")
        args.push_back("-f");
      else if (a.rfind("--file=", 0) == 0)
        args.insert(args.end(), {"-f", a.substr(7)});
      else
        args.push_back(a);
    }
    return std::nullopt;
  }
  std::fprintf(stderr,
               "srtctl: '%s' is not provided by srt-spank's srtctl (it provides %s); run NVIDIA srt-slurm's srtctl "
               "for it\n",
               cmd.c_str(), kProvided);
  return 2;
}

}  // namespace srt::helper

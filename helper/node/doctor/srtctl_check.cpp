// Whether srt-spank's srtctl entry point is installed, and which srtctl PATH finds now: an
// InferenceX runner is switched by putting the entry point's directory first on PATH
// (docs/inferencex.md). Informational: a compute node needs no srtctl.
#include <unistd.h>

#include "checks.hpp"
#include "srt/process.hpp"
#include "srt/this_host.hpp"

namespace srt::doctor {

void check_srtctl(Report& report) {
  // The installed one, else the build tree's (build-dev/helper/srtctl-path/srtctl).
  std::string entry = std::string(SRT_LIBEXECDIR) + "/srt-spank/bin/srtctl";
  if (access(entry.c_str(), X_OK) != 0) entry = helper::executable_dir() + "/srtctl-path/srtctl";
  if (access(entry.c_str(), X_OK) != 0) {
    report.warn("srtctl", "srt-spank's srtctl entry point is not installed (" + std::string(SRT_LIBEXECDIR) +
                              "/srt-spank/bin/srtctl)",
                "install the package again if InferenceX runners on this host should submit through srt-spank");
    return;
  }
  const std::string dir = entry.substr(0, entry.rfind('/'));
  const std::string on_path = sys::find_program("srtctl");
  std::string where = on_path.empty() ? "no srtctl on PATH"
                      : on_path == entry ? "PATH finds it first"
                                         : "PATH finds another srtctl first: " + on_path;
  report.ok("srtctl", "entry point installed at " + entry + " (" + where + ")",
            {"an InferenceX runner submits through srt-spank with: export PATH=" + dir + ":$PATH"});
}

}  // namespace srt::doctor

// What the launcher says: "[mm:ss] message" on stdout (the job's output) and in the job's
// sweep log (srtctl's <log_dir>/sweep_<jobid>.log), through one spdlog logger with a sink for
// each (console.cpp). spdlog stays out of this header: it is header-only here, and only the
// launcher's own files pay for compiling it.
#pragma once
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace spdlog {
class logger;
}

namespace srt::helper {
class SafeDir;
}

namespace srt::launch {

// The last `lines` lines of the log `name` in `dir` (only its last 64 KiB read, each line at most
// 500 bytes: it is what a process in the job's image wrote); empty when it cannot be read. Read
// through the directory's descriptor, never through a link: code in a container can plant one at
// any log name (docs/security.md "Containers").
std::vector<std::string> last_lines(const helper::SafeDir& dir, const std::string& name, int lines);

class Console {
 public:
  Console();
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  // Appends to `path` in a directory of this user's (srt/safe_dir.hpp); throws srt::Error when
  // the file is a symlink, not a regular file, not ours, or its directory is not safe.
  void open_log(const std::string& path);
  void line(const std::string& text);
  // The last `lines` lines of the log `name` in `dir` (as last_lines), indented, for a process
  // that ended the job.
  void tail(const helper::SafeDir& dir, const std::string& name, int lines);
  double seconds() const;  // since the launcher started

 private:
  std::chrono::steady_clock::time_point start_;
  std::chrono::system_clock::time_point wall_start_;  // spdlog's clock: the lines' stamps
  std::FILE* log_ = nullptr;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace srt::launch

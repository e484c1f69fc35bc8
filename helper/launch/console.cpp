#include "console.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <optional>

#include "../safe_dir.hpp"
#include "srt/error.hpp"

namespace srt::launch {

Console::Console() : start_(std::chrono::steady_clock::now()) {}

Console::~Console() {
  if (log_) std::fclose(log_);
}

void Console::open_log(const std::string& path) {
  if (log_) std::fclose(log_);
  log_ = nullptr;
  // In the job's own log directory (checked again on its descriptor), appended without following
  // a link: a sweep log planted as a symlink to ~/.ssh/authorized_keys is refused, not written.
  const std::size_t slash = path.rfind('/');
  const std::optional<helper::SafeDir> dir =
      helper::SafeDir::open(slash == std::string::npos ? "." : path.substr(0, slash), {"log directory", "remove it"}, false);
  if (!dir) fail("the log directory of " + path + " is missing");
  UniqueFd fd = dir->append_file(path.substr(slash + 1));  // close-on-exec: steps must not inherit it
  log_ = ::fdopen(fd.get(), "a");
  if (!log_) fail("cannot open " + path + ": " + std::strerror(errno));
  fd.release();
}

double Console::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Console::line(const std::string& text) {
  const int s = int(seconds());
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%02d:%02d] ", s / 60, s % 60);
  std::fprintf(stdout, "%s%s\n", stamp, text.c_str());
  std::fflush(stdout);
  if (log_) {
    std::fprintf(log_, "%s%s\n", stamp, text.c_str());
    std::fflush(log_);
  }
}

void Console::tail(const std::string& path, int lines) {
  std::ifstream in(path);
  if (!in) {
    line("  (no log at " + path + ")");
    return;
  }
  std::deque<std::string> last;
  for (std::string l; std::getline(in, l);) {
    last.push_back(l);
    if (int(last.size()) > lines) last.pop_front();
  }
  line("  last lines of " + path + ":");
  for (const auto& l : last) line("  | " + l);
}

}  // namespace srt::launch

#include "srt/result_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "srt/submit.hpp"

namespace srt {

namespace fs = std::filesystem;

namespace {

constexpr off_t kMaxResultBytes = 64 << 20;  // benchmark_serving.py's --save-result with per-request lists at c2048 is a few MB

// The file's text, or why it cannot be a result.
bool read_regular(const std::string& file, std::string& text, std::string& why) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ELOOP ? "a symbolic link, not a result file (not followed)" : std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxResultBytes;
  if (!ok) why = S_ISREG(st.st_mode) ? "larger than 64 MiB, not a benchmark result" : "not a regular file";
  if (ok) {
    text.resize(std::size_t(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += std::size_t(n);
    }
    text.resize(got);
  }
  ::close(fd);
  return ok;
}

}  // namespace

std::map<int, std::string> find_result_files(const fs::path& dir) {
  std::map<int, std::string> found;
  std::error_code ec;
  const fs::path fixed = dir / "fixed-seq";
  if (!fs::is_directory(fs::symlink_status(fixed, ec))) return found;  // a planted link is no results directory
  for (fs::directory_iterator it(fixed, ec), end; !ec && it != end; it.increment(ec)) {
    const int n = concurrency_of(it->path().filename().string());
    if (n >= 0) found[n] = it->path().string();
  }
  return found;
}

PointResult judge_point(int concurrency, const std::string& file) {
  if (file.empty()) return missing_point(concurrency);
  std::string text, why;
  if (!read_regular(file, text, why)) return missing_point(concurrency, file, file + ": " + why);
  return judge_point_text(concurrency, file, text);
}

SweepVerdict judge_results(const fs::path& dir, const std::vector<int>& planned) {
  std::map<int, PointResult> judged;
  for (const auto& [n, file] : find_result_files(dir)) judged[n] = judge_point(n, file);
  return judge_sweep(planned, judged);
}

}  // namespace srt

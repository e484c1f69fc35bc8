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

namespace {

bool is_real_directory(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::directory;
}

void add_result_file(const fs::path& file, const fs::path& root, std::vector<report::TreeFile>& out) {
  std::string text, why;
  std::error_code ec;
  if (read_regular(file.string(), text, why)) out.push_back({fs::relative(file, root, ec).string(), std::move(text)});
}

}  // namespace

std::vector<report::TreeFile> collect_result_tree(const fs::path& root) {
  std::vector<report::TreeFile> files;
  std::error_code ec;
  for (const fs::path& logs : {root / "logs", root}) {
    if (!is_real_directory(logs)) continue;
    for (fs::directory_iterator it(logs, ec), end; !ec && it != end; it.increment(ec)) {
      if (!report::is_isl_osl_dir_name(it->path().filename().string()) || !is_real_directory(it->path())) continue;
      // recursive_directory_iterator does not follow directory links unless asked to.
      for (fs::recursive_directory_iterator f(it->path(), ec), fend; !ec && f != fend; f.increment(ec))
        if (f->path().extension() == ".json") add_result_file(f->path(), root, files);
    }
  }
  // AgentX aggregates: InferenceX's single-node lanes write $AGENTIC_OUTPUT_DIR=/logs, so
  // <RESULT_FILENAME>.json sits directly in logs/ (judge_collector_tree knows one by its content).
  if (is_real_directory(root / "logs"))
    for (fs::directory_iterator it(root / "logs", ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") add_result_file(it->path(), root, files);
  if (is_real_directory(root / "fixed-seq"))
    for (fs::directory_iterator it(root / "fixed-seq", ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") add_result_file(it->path(), root, files);
  return files;
}

}  // namespace srt

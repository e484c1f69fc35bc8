#include "console.hpp"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>

#include <unistd.h>

#include "srt/safe_dir.hpp"
#include "srt/error.hpp"

namespace srt::launch {
namespace {

// %* in the pattern: "[mm:ss]" since the launcher started, the stamp srtctl's sweep log has.
// From the message's own time, so the job's output and the sweep log agree on every line.
class ElapsedFlag final : public spdlog::custom_flag_formatter {
 public:
  explicit ElapsedFlag(spdlog::log_clock::time_point start) : start_(start) {}
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const long s = std::chrono::duration_cast<std::chrono::seconds>(msg.time - start_).count();
    fmt::format_to(std::back_inserter(dest), "[{:02d}:{:02d}]", s / 60, s % 60);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<ElapsedFlag>(start_); }

 private:
  spdlog::log_clock::time_point start_;
};

// A sink over a stream the launcher opened itself: the sweep log is opened through SafeDir
// (never by name, never through a link), which spdlog's file sinks cannot do.
class StreamSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit StreamSink(std::FILE* stream) : stream_(stream) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    std::fwrite(line.data(), 1, line.size(), stream_);
  }
  void flush_() override { std::fflush(stream_); }

 private:
  std::FILE* stream_;
};

// Every line flushed as it is written: the job's output and the sweep log are read while the
// job runs (tail -f, srt-helper run's progress).
std::shared_ptr<spdlog::logger> make_logger(spdlog::log_clock::time_point start, std::FILE* log) {
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stdout_sink_mt>()};
  if (log) sinks.push_back(std::make_shared<StreamSink>(log));
  auto logger = std::make_shared<spdlog::logger>("launch", sinks.begin(), sinks.end());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<ElapsedFlag>('*', start).set_pattern("%* %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  return logger;
}

}  // namespace

Console::Console()
    : start_(std::chrono::steady_clock::now()), wall_start_(spdlog::log_clock::now()), logger_(make_logger(wall_start_, nullptr)) {}

Console::~Console() {
  logger_.reset();  // before the stream its sink writes to
  if (log_) std::fclose(log_);
}

void Console::open_log(const std::string& path) {
  if (log_) {
    logger_ = make_logger(wall_start_, nullptr);  // no sink left on the stream closed here
    std::fclose(log_);
    log_ = nullptr;
  }
  // In the job's own log directory (checked again on its descriptor), appended without following
  // a link: a sweep log planted as a symlink to ~/.ssh/authorized_keys is refused, not written.
  const std::size_t slash = path.rfind('/');
  const std::optional<helper::SafeDir> dir =
      helper::SafeDir::open(slash == std::string::npos ? "." : path.substr(0, slash), {"log directory", "remove it"}, false);
  if (!dir) fail("the log directory of " + path + " is missing");
  UniqueFd fd = dir->append_file(path.substr(slash + 1));  // close-on-exec: steps must not inherit it
  // `srt-helper apply` makes this file the batch step's --output (sbatch), so the launcher's
  // stdout already is the sweep log: a second sink would write every line twice.
  struct stat log_st {}, out_st {};
  if (::fstat(fd.get(), &log_st) == 0 && ::fstat(STDOUT_FILENO, &out_st) == 0 && log_st.st_dev == out_st.st_dev &&
      log_st.st_ino == out_st.st_ino)
    return;
  log_ = ::fdopen(fd.get(), "a");
  if (!log_) fail("cannot open " + path + ": " + std::strerror(errno));
  fd.release();
  logger_ = make_logger(wall_start_, log_);
}

double Console::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Console::line(const std::string& text) { logger_->info("{}", text); }

std::vector<std::string> last_lines(const helper::SafeDir& dir, const std::string& name, int lines) {
  constexpr std::size_t kTailBytes = 64 << 10;
  constexpr std::size_t kLineBytes = 500;
  bool cut = false;
  const std::optional<std::string> text = dir.tail_of(name, kTailBytes, cut);
  if (!text) return {};
  std::deque<std::string> last;
  std::size_t at = 0;
  for (bool first = true; at < text->size(); first = false) {
    std::size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    std::string l = text->substr(at, end - at);
    at = end + 1;
    if (first && cut) continue;  // a line the 64 KiB began inside of
    if (l.size() > kLineBytes) l = l.substr(0, kLineBytes) + " ...";
    last.push_back(std::move(l));
    if (int(last.size()) > lines) last.pop_front();
  }
  return {last.begin(), last.end()};
}

void Console::tail(const helper::SafeDir& dir, const std::string& name, int lines) {
  const std::string path = dir.path_of(name);
  if (!dir.size_of(name)) {
    line("  (no log at " + path + (dir.kind_of(name) == "missing" ? "" : ": a " + dir.kind_of(name) + ", not read") + ")");
    return;
  }
  line("  last lines of " + path + ":");
  for (const auto& l : last_lines(dir, name, lines)) line("  | " + l);
}

}  // namespace srt::launch

// The picture: the runs become a JSON document, and plot_report.py (embedded in the binary, run
// by Debian's python3 with matplotlib; why is in that script's header) draws PNG and SVG.
// The child gets argv only (no shell), its stdin is an unlinked temp file holding the JSON, and
// its stdout+stderr come back through one pipe, read to the end before waitpid: no deadlock,
// and a failure is reported with the plotter's own words.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "srt/error.hpp"
#include "srt/report.hpp"

extern char** environ;

namespace srt::report {

extern const char* const kPlotScript;  // plot_script.cpp, generated from plot_report.py

namespace fs = std::filesystem;

namespace {

// matplotlib's first run builds a font cache (seconds); anything near this limit is a hang.
constexpr int kPlotTimeoutSeconds = 120;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&a_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() { posix_spawn_file_actions_destroy(&a_); }
  posix_spawn_file_actions_t* get() { return &a_; }

 private:
  posix_spawn_file_actions_t a_;
};

[[noreturn]] void plot_failed(const std::string& what, const std::string& hint = {}) {
  fail("cannot draw the throughput-vs-interactivity picture: " + what, hint);
}

std::string errtext() { return std::strerror(errno); }

// The JSON on a file descriptor positioned at its start, gone from the filesystem already.
int stdin_file(const std::string& text) {
  std::string name = (fs::temp_directory_path() / "srt-report-XXXXXX").string();
  const int fd = ::mkostemp(&name[0], O_CLOEXEC);
  if (fd < 0) plot_failed("cannot create a temporary file in " + fs::temp_directory_path().string() + ": " + errtext());
  ::unlink(name.c_str());
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = errtext();
      ::close(fd);
      plot_failed("cannot write the temporary input file: " + why);
    }
    done += std::size_t(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    ::close(fd);
    plot_failed("cannot rewind the temporary input file: " + errtext());
  }
  return fd;
}

std::string last_lines(const std::string& text, std::size_t lines) {
  std::size_t end = text.find_last_not_of("\n");
  if (end == std::string::npos) return "(no output)";
  std::size_t pos = end + 1;
  for (std::size_t n = 0; n < lines && pos > 0; ++n) {
    const std::size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text.substr(0, end + 1);
    pos = nl;
  }
  return text.substr(pos + 1, end - pos);
}

}  // namespace

Json plot_input(const std::vector<Run>& runs, const fs::path& out_dir, const PictureOptions& options) {
  const bool output = options.y_metric == "output";
  if (!output && options.y_metric != "total")
    fail("unknown picture metric '" + options.y_metric + "'", "use total (token throughput per GPU) or output");
  Json j;
  j["png"] = (out_dir / "throughput_vs_interactivity.png").string();
  j["svg"] = (out_dir / "throughput_vs_interactivity.svg").string();
  j["title"] = options.title.empty() ? "Throughput per GPU vs interactivity" : options.title;
  j["x_label"] = "Interactivity (tok/s/user = 1000 / median TPOT ms)";
  j["y_label"] = output ? "Output token throughput per GPU (tok/s/GPU)"
                        : "Token throughput per GPU (input + output tok/s / GPUs)";
  j["runs"] = Json::array();
  for (const auto& r : runs)
    if (r.gpus.known() && r.without_gpus) j["caveat"] = kStandInCaveat;
  for (const auto& r : runs) {
    if (!r.gpus.known()) continue;  // per-GPU throughput is the y axis
    Json run;
    run["label"] = r.label();
    run["points"] = Json::array();
    run["not_drawn"] = Json::array();
    for (const auto& p : r.points) {
      const std::string conc = "c" + std::to_string(p.concurrency);
      if (!p.plottable()) {
        // The table has the full reason; under the chart a short one keeps the note readable.
        run["not_drawn"].push_back(p.state == PointState::missing ? conc + " missing (no result file)"
                                                                  : conc + " failed: " + p.failure);
        continue;
      }
      run["points"].push_back({{"concurrency", p.concurrency},
                               {"x", p.interactivity},
                               {"y", output ? p.output_per_gpu : p.total_per_gpu},
                               {"failed", p.state == PointState::failed},
                               {"reason", p.failure}});
    }
    j["runs"].push_back(std::move(run));
  }
  return j;
}

Pictures write_pictures(const std::vector<Run>& runs, const fs::path& out_dir, const PictureOptions& options) {
  const Json input = plot_input(runs, out_dir, options);
  if (input["runs"].empty())
    plot_failed("the GPU count of every run is unknown (no plan.json, no _gpus_<N> in the result file names)",
                "pass --gpus N (all prefill, decode and agg GPUs) or keep the job's plan.json beside fixed-seq/");
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir, ec))
    plot_failed("cannot create the output directory " + out_dir.string() + (ec ? ": " + ec.message() : ""),
                "pass --out DIR with a writable directory");
  Fd in(stdin_file(input.dump()));

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) plot_failed("pipe: " + errtext());
  Fd out_read(fds[0]), out_write(fds[1]);

  SpawnActions actions;
  posix_spawn_file_actions_adddup2(actions.get(), in.get(), 0);
  posix_spawn_file_actions_adddup2(actions.get(), out_write.get(), 1);
  posix_spawn_file_actions_adddup2(actions.get(), out_write.get(), 2);
  // -I: no PYTHONPATH, no user site, no current directory on sys.path: Debian's matplotlib only.
  std::vector<char*> argv = {const_cast<char*>(options.python.c_str()), const_cast<char*>("-I"),
                             const_cast<char*>("-c"), const_cast<char*>(kPlotScript), nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, options.python.c_str(), actions.get(), nullptr, argv.data(), environ);
  if (rc != 0)
    plot_failed("cannot run " + options.python + ": " + std::strerror(rc),
                "install Debian's python3 and python3-matplotlib (scripts/install-deps.sh)");
  out_write.reset();
  in.reset();

  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kPlotTimeoutSeconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{out_read.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, int(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(out_read.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (output.size() < (1 << 20)) output.append(buf, std::size_t(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    plot_failed(options.python + " did not finish within " + std::to_string(kPlotTimeoutSeconds) + " s (killed)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                              : "was killed by signal " + std::to_string(WTERMSIG(status));
    plot_failed(options.python + " " + how + ":\n" + last_lines(output, 12));
  }
  Pictures pictures{input["png"].get<std::string>(), input["svg"].get<std::string>()};
  for (const auto& f : {pictures.png, pictures.svg})
    if (!fs::is_regular_file(f, ec)) plot_failed(options.python + " reported success but did not write " + f.string());
  return pictures;
}

}  // namespace srt::report

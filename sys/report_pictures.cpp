// The picture drawn: plot_input's document on the stdin of plot_report.py (embedded in the
// binary, run by Debian's python3 with matplotlib; why is in that script's header). The child gets
// argv only (no shell), its stdin is an unlinked temp file holding the JSON, and its stdout+stderr
// come back through one pipe, read to the end before it is reaped: no deadlock, and a failure is
// reported with the plotter's own words.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "srt/error.hpp"
#include "srt/process.hpp"
#include "srt/report_files.hpp"
#include "srt/unique_fd.hpp"

namespace srt::report {

namespace fs = std::filesystem;

namespace {

// matplotlib's first run builds a font cache (seconds); anything near this limit is a hang.
constexpr int kPlotTimeoutSeconds = 120;

[[noreturn]] void plot_failed(const std::string& what, const std::string& hint = {}) {
  fail("cannot draw the throughput-vs-interactivity picture: " + what, hint);
}

std::string errtext() { return std::strerror(errno); }

// The JSON on a file descriptor positioned at its start, gone from the filesystem already.
UniqueFd stdin_file(const std::string& text) {
  std::string name = (fs::temp_directory_path() / "srt-report-XXXXXX").string();
  UniqueFd fd(::mkostemp(&name[0], O_CLOEXEC));
  if (!fd) plot_failed("cannot create a temporary file in " + fs::temp_directory_path().string() + ": " + errtext());
  ::unlink(name.c_str());
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) plot_failed("cannot write the temporary input file: " + errtext());
    done += std::size_t(n);
  }
  if (::lseek(fd.get(), 0, SEEK_SET) != 0) plot_failed("cannot rewind the temporary input file: " + errtext());
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
  const UniqueFd in = stdin_file(input.dump());
  sys::CaptureOptions run;
  run.timeout_seconds = kPlotTimeoutSeconds;
  run.with_stderr = true;
  run.stdin_fd = in.get();
  // -I: no PYTHONPATH, no user site, no current directory on sys.path: Debian's matplotlib only.
  const sys::Captured plot = sys::capture({options.python, "-I", "-c", kPlotScript}, run);
  if (plot.exec_error)
    plot_failed("cannot run " + options.python + ": " + std::strerror(plot.exec_error),
                "install Debian's python3 and python3-matplotlib (scripts/install-deps.sh)");
  if (plot.timed_out)
    plot_failed(options.python + " did not finish within " + std::to_string(kPlotTimeoutSeconds) + " s (killed)");
  if (!plot.ok()) plot_failed(options.python + " " + plot.describe() + ":\n" + last_lines(plot.output, 12));
  Pictures pictures{input["png"].get<std::string>(), input["svg"].get<std::string>()};
  for (const auto& f : {pictures.png, pictures.svg})
    if (!fs::is_regular_file(f, ec)) plot_failed(options.python + " reported success but did not write " + f.string());
  return pictures;
}

}  // namespace srt::report

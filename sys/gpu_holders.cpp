#include "srt/gpu_holders.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <vector>

namespace srt::helper {
namespace {

// Bounded: an environment is at most ARG_MAX-ish; a file that claims more is not read further.
constexpr std::size_t kMaxProcFile = 1 << 20;

bool read_small(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.clear();
  char chunk[16384];
  while (out.size() < kMaxProcFile) {
    in.read(chunk, sizeof chunk);
    const std::streamsize n = in.gcount();
    if (n <= 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  return true;
}

template <typename T>
bool parse_number(const std::string& text, T& out) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, out);
  return r.ec == std::errc() && r.ptr == end && !text.empty();
}

// The real uid from "Uid:\t<real>\t<effective>...".
int read_uid(const std::string& status) {
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    std::string real;
    int uid = -1;
    if (fields >> real && parse_number(real, uid)) return uid;
  }
  return -1;
}

// Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and ')', so count
// from the last ')'.
unsigned long long read_start_time(const std::string& stat) {
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) {
      unsigned long long t = 0;
      return parse_number(field, t) ? t : 0;
    }
  return 0;
}

std::optional<long> job_of(const std::string& environ) {
  constexpr char kKey[] = "SLURM_JOB_ID=";
  std::size_t at = 0;
  while (at < environ.size()) {
    const std::size_t end = std::min(environ.find('\0', at), environ.size());
    if (environ.compare(at, sizeof kKey - 1, kKey) == 0) {
      long id = 0;
      if (parse_number(environ.substr(at + sizeof kKey - 1, end - at - (sizeof kKey - 1)), id) && id > 0) return id;
      return std::nullopt;
    }
    at = end + 1;
  }
  return std::nullopt;
}

// Waits for the pidfd to say the process ended (it becomes readable then).
bool ended_within(int pidfd, double seconds) {
  pollfd p{pidfd, POLLIN, 0};
  const int rc = ::poll(&p, 1, static_cast<int>(seconds * 1000));
  return rc > 0;
}

}  // namespace

ProcessIdentity read_holder(GpuHolder& h) {
  ProcessIdentity id;
  const std::string dir = "/proc/" + std::to_string(h.pid);
  std::string stat, status, comm, environ;
  h.alive = read_small(dir + "/stat", stat) && !stat.empty();
  if (!h.alive) return id;
  id.start_time = read_start_time(stat);
  if (read_small(dir + "/status", status)) h.uid = read_uid(status);
  if (read_small(dir + "/comm", comm)) h.comm = comm.substr(0, comm.find('\n'));
  // Another user's environment is unreadable to a non-root step: no job id, and the judge
  // names that process rather than ending it.
  if (read_small(dir + "/environ", environ)) h.job_id = job_of(environ);
  return id;
}

std::string end_holder(const GpuHolder& h, const ProcessIdentity& id, double grace_seconds) {
  const std::string pid = "PID " + std::to_string(h.pid);
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, h.pid, 0));
  if (fd < 0) return errno == ESRCH ? "" : pid + ": pidfd_open: " + std::strerror(errno) + "; not ended";
  // The pidfd pins the process: if it is still the one judged, nothing can recycle its PID
  // between this check and the signal.
  GpuHolder now;
  now.pid = h.pid;
  const ProcessIdentity again = read_holder(now);
  std::string result;
  if (!now.alive) {
    result = "";
  } else if (now.uid != h.uid || again.start_time != id.start_time) {
    result = pid + " is another process now; not ended";
  } else if (::syscall(SYS_pidfd_send_signal, fd, SIGTERM, nullptr, 0) != 0 && errno != ESRCH) {
    result = pid + ": SIGTERM: " + std::strerror(errno);
  } else if (!ended_within(fd, grace_seconds)) {
    ::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0);
    if (!ended_within(fd, 5))
      result = pid + " did not end within " + std::to_string(static_cast<int>(grace_seconds) + 5) +
               " s of SIGTERM and SIGKILL (stuck in the GPU driver?); the node needs its admin";
  }
  ::close(fd);
  return result;
}

}  // namespace srt::helper

#include "srt/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "srt/error.hpp"
#include "srt/unique_fd.hpp"

namespace srt::sys {
namespace {

using Clock = std::chrono::steady_clock;

enum class Reaped { yes, killed, elsewhere };

// Reaps `pid` once it ends, waiting until `end` at most: yes with its status in `st`; killed
// when the time was up (SIGKILLed then, and reaped); elsewhere when it is no child of ours any
// more. The wait is a poll on a pidfd (pidfd_open(2), Linux 5.3), which wakes when the child
// ends: a fixed 10 ms sleep between waitpid() calls could cost a capture 10 ms when its output
// closed just before the child was reapable (`srtctl apply` runs two). Without pidfds, short
// sleeps that grow to 10 ms.
Reaped reap_or_kill(pid_t pid, Clock::time_point end, int& st) {
  const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
  const UniqueFd own(pidfd);
  auto step = std::chrono::microseconds(100);
  for (;;) {
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) return Reaped::yes;
    if (r < 0 && errno != EINTR) return Reaped::elsewhere;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0 && r == 0) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      return Reaped::killed;
    }
    if (pidfd >= 0) {
      pollfd pfd{pidfd, POLLIN, 0};
      ::poll(&pfd, 1, int(std::max<long long>(1, left.count())));
    } else {
      std::this_thread::sleep_for(step);
      step = std::min<std::chrono::microseconds>(step * 2, std::chrono::milliseconds(10));
    }
  }
}

// What the child needs besides argv: its environment changes and where its stdio goes.
struct Stdio {
  int in = -1;             // -1: /dev/null
  int out = -1;            // -1: ours
  bool err_too = false;    // stderr to `out` as well
  int exec_error_fd = -1;  // close-on-exec pipe: a failed exec writes its errno here
};

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const EnvList& set,
                             const std::vector<std::string>& unset, const Stdio& io) {
  if (io.in >= 0) {
    ::dup2(io.in, 0);
  } else {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
  }
  if (io.out >= 0) ::dup2(io.out, 1);
  if (io.out >= 0 && io.err_too) ::dup2(io.out, 2);
  for (const auto& name : unset) ::unsetenv(name.c_str());
  for (const auto& [k, v] : set) ::setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Default dispositions: the launcher's handlers must not leak into srun.
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGPIPE}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execvp(args[0], args.data());
  const int err = errno;
  if (io.exec_error_fd >= 0 && ::write(io.exec_error_fd, &err, sizeof err) == ssize_t(sizeof err)) ::_exit(127);
  std::fprintf(stderr, "srt-helper: cannot run %s: %s\n", args[0], std::strerror(err));
  ::_exit(127);
}

pid_t fork_exec(const std::vector<std::string>& argv, const EnvList& set, const std::vector<std::string>& unset,
                const Stdio& io) {
  if (argv.empty()) fail("internal: empty command");
  const pid_t pid = ::fork();
  if (pid < 0) fail(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(argv, set, unset, io);
  return pid;
}

}  // namespace

Child Child::spawn(const std::vector<std::string>& argv, const EnvList& set, const std::vector<std::string>& unset) {
  Child c;
  c.pid_ = fork_exec(argv, set, unset, Stdio{});
  return c;
}

Child::Child(Child&& other) noexcept { *this = std::move(other); }

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    pid_ = other.pid_;
    done_ = other.done_;
    exit_code_ = other.exit_code_;
    term_signal_ = other.term_signal_;
    other.pid_ = -1;
  }
  return *this;
}

Child::~Child() {
  if (pid_ <= 0 || done_) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

bool Child::finished() {
  if (pid_ <= 0 || done_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return false;
  done_ = true;
  if (r < 0) return true;  // not ours any more (cannot happen unless someone reaped it)
  if (WIFEXITED(status)) exit_code_ = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) term_signal_ = WTERMSIG(status);
  return true;
}

void Child::signal(int sig) const {
  if (pid_ > 0 && !done_) ::kill(pid_, sig);
}

std::string Child::describe() const {
  if (!done_) return "running";
  if (term_signal_) return std::string("killed by signal ") + std::to_string(term_signal_) + " (" + ::strsignal(term_signal_) + ")";
  return "exit code " + std::to_string(exit_code_);
}

int run_to_fd(const std::vector<std::string>& argv, double timeout_seconds, int out_fd) {
  Stdio io;
  io.out = out_fd;
  const pid_t pid = fork_exec(argv, {}, {}, io);
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  int st = 0;
  const Reaped reaped = reap_or_kill(pid, end, st);
  return reaped == Reaped::yes && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Captured capture(const std::vector<std::string>& argv, const CaptureOptions& options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe failed: ") + std::strerror(errno));
  UniqueFd out_read(fds[0]), out_write(fds[1]);
  if (::pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe failed: ") + std::strerror(errno));
  UniqueFd error_read(fds[0]), error_write(fds[1]);
  Stdio io;
  io.in = options.stdin_fd;
  io.out = out_write.get();
  io.err_too = options.with_stderr;
  io.exec_error_fd = error_write.get();
  const pid_t pid = fork_exec(argv, {}, {}, io);
  out_write.reset();
  error_write.reset();

  Captured c;
  // The exec either happened (the pipe closes on exec: read returns 0) or it wrote its errno.
  int exec_errno = 0;
  ssize_t got = 0;
  do got = ::read(error_read.get(), &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  if (got == ssize_t(sizeof exec_errno)) c.exec_error = exec_errno;

  const Clock::time_point end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_seconds));
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0) break;
    pollfd pfd{out_read.get(), POLLIN, 0};
    const int ready = ::poll(&pfd, 1, int(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(out_read.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (c.output.size() < kMaxCaptureBytes) c.output.append(buf, std::size_t(n));
  }
  out_read.reset();
  int st = 0;
  const Reaped reaped = reap_or_kill(pid, end, st);
  if (reaped == Reaped::elsewhere) return c;  // nothing more to know
  if (reaped == Reaped::killed) {
    c.timed_out = true;
    c.term_signal = SIGKILL;
    return c;
  }
  if (WIFEXITED(st)) c.exit_code = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) c.term_signal = WTERMSIG(st);
  return c;
}

std::string Captured::describe() const {
  if (exec_error) return std::string("could not be run: ") + std::strerror(exec_error);
  if (timed_out) return "did not finish in time (killed)";
  if (term_signal) return "was killed by signal " + std::to_string(term_signal);
  return "exited with status " + std::to_string(exit_code);
}

std::string run_capture(const std::vector<std::string>& argv, double timeout_seconds, int* status, bool with_stderr) {
  CaptureOptions o;
  o.timeout_seconds = timeout_seconds;
  o.with_stderr = with_stderr;
  Captured c = capture(argv, o);
  if (status) *status = c.exit_code;
  if (c.exec_error) {
    // As a shell would say it, where the caller reads the command's words.
    const std::string line = "srt-helper: cannot run " + argv.front() + ": " + std::strerror(c.exec_error) + "\n";
    if (with_stderr) c.output += line;
    else std::fputs(line.c_str(), stderr);
  }
  return std::move(c.output);
}

std::string find_program(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', from), dirs.size());
    const std::string dir = colon == from ? "." : dirs.substr(from, colon - from);
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    from = colon + 1;
  }
  return {};
}

}  // namespace srt::sys

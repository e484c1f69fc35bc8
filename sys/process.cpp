#include "srt/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

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
  int in = -1;           // -1: /dev/null
  int out = -1;          // -1: ours
  bool err_too = false;  // stderr to `out` as well
};

// Our environment with `unset` removed and `set` put (replacing a variable of the same name).
std::vector<std::string> child_environment(const EnvList& set, const std::vector<std::string>& unset) {
  const auto named = [](const std::string& entry, const std::string& name) {
    return entry.size() > name.size() && entry[name.size()] == '=' && entry.compare(0, name.size(), name) == 0;
  };
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const bool dropped = std::any_of(unset.begin(), unset.end(), [&](const std::string& n) { return named(entry, n); }) ||
                         std::any_of(set.begin(), set.end(), [&](const auto& kv) { return named(entry, kv.first); });
    if (!dropped) env.push_back(entry);
  }
  for (const auto& [k, v] : set) env.push_back(k + "=" + v);
  return env;
}

// posix_spawnp(3), not fork then exec: glibc's spawn shares the parent's memory until the exec
// (CLONE_VFORK), so no page tables are copied (a fork of srt-helper cost `srtctl apply` a few ms
// per child), and nothing runs between the two that is unsafe in the child of a threaded
// process (the launcher has threads; the fork child called setenv and malloc). The program is
// looked up in our PATH, which no caller sets for the child. Returns 0 and the pid, or the errno
// of the failed start (no such program, not executable).
int spawn_process(const std::vector<std::string>& argv, const EnvList& set, const std::vector<std::string>& unset,
                  const Stdio& io, pid_t& pid) {
  if (argv.empty()) fail("internal: empty command");
  // posix_spawnp takes char* const[] and writes none of them.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_store = child_environment(set, unset);
  std::vector<char*> env;
  for (std::string& e : env_store) env.push_back(e.data());
  env.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (::posix_spawn_file_actions_init(&actions) != 0 || ::posix_spawnattr_init(&attr) != 0)
    fail("cannot prepare to start " + argv.front() + ": out of memory");
  if (io.in >= 0) ::posix_spawn_file_actions_adddup2(&actions, io.in, 0);
  else ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (io.out >= 0) ::posix_spawn_file_actions_adddup2(&actions, io.out, 1);
  if (io.out >= 0 && io.err_too) ::posix_spawn_file_actions_adddup2(&actions, io.out, 2);
  // Default dispositions and no blocked signal: the launcher's handlers must not leak into srun.
  sigset_t defaults, none;
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGPIPE}) sigaddset(&defaults, sig);
  sigemptyset(&none);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setsigmask(&attr, &none);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), env.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  return rc;
}

// As a shell says it when a command cannot be started (one line, with its newline).
std::string cannot_run_line(const std::string& program, int err) {
  return "srt-helper: cannot run " + program + ": " + std::strerror(err) + "\n";
}

void say_cannot_run(const std::string& program, int err) { std::fputs(cannot_run_line(program, err).c_str(), stderr); }

}  // namespace

Child Child::spawn(const std::vector<std::string>& argv, const EnvList& set, const std::vector<std::string>& unset,
                   int output_fd) {
  Child c;
  Stdio io;
  io.out = output_fd;
  io.err_too = output_fd >= 0;
  if (const int err = spawn_process(argv, set, unset, io, c.pid_)) {
    // What a shell's child reports: the caller sees a finished child with exit code 127.
    say_cannot_run(argv.front(), err);
    c.pid_ = -1;
    c.done_ = true;
    c.exit_code_ = 127;
  }
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
  pid_t pid = -1;
  if (const int err = spawn_process(argv, {}, {}, io, pid)) {
    say_cannot_run(argv.front(), err);
    return 127;
  }
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  int st = 0;
  const Reaped reaped = reap_or_kill(pid, end, st);
  return reaped == Reaped::yes && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Captured capture(const std::vector<std::string>& argv, const CaptureOptions& options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe failed: ") + std::strerror(errno));
  UniqueFd out_read(fds[0]), out_write(fds[1]);
  Stdio io;
  io.in = options.stdin_fd;
  io.out = out_write.get();
  io.err_too = options.with_stderr;
  Captured c;
  pid_t pid = -1;
  c.exec_error = spawn_process(argv, {}, {}, io, pid);
  out_write.reset();
  if (c.exec_error) {
    c.exit_code = 127;  // what a shell's child exits with: callers test the status alone
    return c;
  }

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
    // Where the caller reads the command's words.
    if (with_stderr) c.output += cannot_run_line(argv.front(), c.exec_error);
    else say_cannot_run(argv.front(), c.exec_error);
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

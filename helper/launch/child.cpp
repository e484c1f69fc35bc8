#include "child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "srt/error.hpp"

extern char** environ;

namespace srt::launch {
namespace {

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const EnvList& set,
                             const std::vector<std::string>& unset, int stdout_fd, bool with_stderr) {
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, 0);
  if (stdout_fd >= 0) ::dup2(stdout_fd, 1);
  if (stdout_fd >= 0 && with_stderr) ::dup2(stdout_fd, 2);
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
  std::fprintf(stderr, "srt-helper launch: cannot run %s: %s\n", args[0], std::strerror(errno));
  ::_exit(127);
}

pid_t fork_exec(const std::vector<std::string>& argv, const EnvList& set, const std::vector<std::string>& unset,
                int stdout_fd, bool with_stderr = false) {
  if (argv.empty()) fail("internal: empty command");
  const pid_t pid = ::fork();
  if (pid < 0) fail(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(argv, set, unset, stdout_fd, with_stderr);
  return pid;
}

}  // namespace

Child Child::spawn(const std::vector<std::string>& argv, const EnvList& set, const std::vector<std::string>& unset) {
  Child c;
  c.pid_ = fork_exec(argv, set, unset, -1);
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
  const pid_t pid = fork_exec(argv, {}, {}, out_fd);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  int st = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() >= end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string run_capture(const std::vector<std::string>& argv, double timeout_seconds, int* status, bool with_stderr) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail(std::string("pipe failed: ") + std::strerror(errno));
  const pid_t pid = fork_exec(argv, {}, {}, fds[1], with_stderr);
  ::close(fds[1]);
  std::string out;
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd pfd{fds[0], POLLIN, 0};
    if (::poll(&pfd, 1, int(left.count())) <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  int st = 0;
  while (::waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      if (status) *status = -1;
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

}  // namespace srt::launch

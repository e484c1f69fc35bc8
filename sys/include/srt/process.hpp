// Child processes: one the launcher keeps running (an srun), owned, and commands run to the end
// with their output captured (squeue, scancel, tar, the report's plotter). Argv only, never a
// shell; every wait bounded.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "srt/recipe.hpp"

namespace srt::sys {

// Owned: the destructor kills and reaps it if it is still there, so no path out of the launcher
// leaves an orphan srun behind.
class Child {
 public:
  Child() = default;
  // posix_spawnp `argv` with the launcher's environment plus `set`, minus `unset`; stdin is
  // /dev/null, stdout/stderr are the launcher's. A program that cannot be started is a finished
  // child with exit code 127 (and a line on stderr), as a shell's would be.
  // With `output_fd` >= 0, the child's stdout and stderr are that descriptor instead (a log the
  // caller opened itself, never by a path a step's program could have replaced).
  static Child spawn(const std::vector<std::string>& argv, const EnvList& set,
                     const std::vector<std::string>& unset, int output_fd = -1);
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  // Non-blocking: true once the process has ended (and was reaped).
  bool finished();
  void signal(int sig) const;
  pid_t pid() const { return pid_; }
  int exit_code() const { return exit_code_; }    // -1 while running or when killed
  int term_signal() const { return term_signal_; }  // 0 unless killed by a signal
  std::string describe() const;                   // "exit code 1", "killed by signal 9"

 private:
  pid_t pid_ = -1;
  bool done_ = false;
  int exit_code_ = -1;
  int term_signal_ = 0;
};

inline constexpr std::size_t kMaxCaptureBytes = std::size_t(64) << 20;

struct CaptureOptions {
  double timeout_seconds = 60;  // then KILL
  bool with_stderr = false;     // stderr into the output too; otherwise it is ours
  int stdin_fd = -1;            // the child's stdin; -1: /dev/null
};

struct Captured {
  std::string output;
  int exit_code = -1;    // -1 unless it exited
  int term_signal = 0;   // the signal that ended it, SIGKILL after a timeout
  bool timed_out = false;
  int exec_error = 0;    // errno of an exec that failed: the program is not there or not runnable
  bool ok() const { return exit_code == 0; }
  std::string describe() const;  // "exited with status 1", "was killed by signal 9", "did not finish ..."
};

// Runs argv to completion, its output read to the end before it is reaped (no pipe deadlock).
// Throws srt::Error when no pipe could be made; a program that cannot be started is `exec_error`
// with exit code 127, as a shell's child. At most kMaxCaptureBytes of output are kept; the rest is read and dropped.
Captured capture(const std::vector<std::string>& argv, const CaptureOptions& options);

// capture() for the callers that want only the output: `status` receives the exit code (-1 on
// timeout or signal).
std::string run_capture(const std::vector<std::string>& argv, double timeout_seconds, int* status = nullptr,
                        bool with_stderr = false);

// Runs argv to completion (bounded as run_capture) with its stdout on `out_fd` (a file the
// caller created safely: tar writes its archive there instead of opening a path); returns the
// exit code, -1 on timeout or signal.
int run_to_fd(const std::vector<std::string>& argv, double timeout_seconds, int out_fd);

// The executable `name` would run as (execvp's search of $PATH; a name with '/' as it is), or "".
std::string find_program(const std::string& name);

}  // namespace srt::sys

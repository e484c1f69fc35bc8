// A child process the launcher started (an srun), owned: the destructor kills and reaps it
// if it is still there, so no path out of the launcher leaves an orphan srun behind.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "srt/recipe.hpp"

namespace srt::launch {

class Child {
 public:
  Child() = default;
  // fork + exec `argv` with the launcher's environment plus `set`, minus `unset`; stdin is
  // /dev/null, stdout/stderr are the launcher's. Throws srt::Error when fork fails.
  static Child spawn(const std::vector<std::string>& argv, const EnvList& set,
                     const std::vector<std::string>& unset);
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

// Runs argv to completion (bounded by timeout_seconds, then KILL) and returns its stdout (and
// its stderr too with `with_stderr`; otherwise stderr is the launcher's). `status` receives the
// exit code (-1 on timeout or signal).
std::string run_capture(const std::vector<std::string>& argv, double timeout_seconds, int* status = nullptr,
                        bool with_stderr = false);

// Runs argv to completion (bounded as run_capture) with its stdout on `out_fd` (a file the
// caller created safely: tar writes its archive there instead of opening a path); returns the
// exit code, -1 on timeout or signal.
int run_to_fd(const std::vector<std::string>& argv, double timeout_seconds, int out_fd);

}  // namespace srt::launch

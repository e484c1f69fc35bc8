// Test scaffolding both SPANK test programs share (the glue tests, which link the implementation's
// objects, and the loader test, which dlopens it): scratch directories, the source tree, stderr
// captured, a clean job environment.
#pragma once
#include <stdlib.h>

#include <functional>
#include <string>

#include "scratch_dir.hpp"

extern "C" {
#include "impl_abi.h"  // SRT_SNAPSHOT_JOB_ENV
}

namespace srt::spank_test {

std::string source_path(const std::string& relative);  // under the source tree

// A scratch directory per test, removed afterwards.
using TempDir = srt_test::ScratchDir;

// Runs `fn` with fd 2 sent to a file; returns what it wrote (task_init reports on the task's stderr).
std::string capture_stderr(const std::function<void()>& fn);

// The implementation reads and writes the process environment on the submit side: start clean.
struct CleanEnv {
  CleanEnv() { clear(); }
  ~CleanEnv() { clear(); }
  CleanEnv(const CleanEnv&) = delete;
  CleanEnv& operator=(const CleanEnv&) = delete;
  static void clear() {
    ::unsetenv(SRT_SNAPSHOT_JOB_ENV);
    ::unsetenv("SLURM_JOB_ID");
  }
};

}  // namespace srt::spank_test

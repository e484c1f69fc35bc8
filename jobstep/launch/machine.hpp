#pragma once
#include "launch.hpp"

namespace srt::launch {

// The whole batch step; returns the process exit status (0 only when the benchmark completed).
int run_launch(const Options& options);

}  // namespace srt::launch

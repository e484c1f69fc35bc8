// benchmark.stream_output (srtctl v2.18): the benchmark client's own output, as it is written to
// its log in <job dir>/logs, copied line by line into the job's console, so the sweep log that
// InferenceX's driver tails shows the client's progress.
#pragma once
#include <sys/types.h>

#include <string>

#include "console.hpp"

namespace srt::launch {

class OutputStream {
 public:
  // Follows `path` (opened on the first poll that finds it; never through a link).
  OutputStream(std::string path, std::string prefix) : path_(std::move(path)), prefix_(std::move(prefix)) {}
  // Every complete line written since the last poll, to `console`; with `flush_partial`, a last
  // line without its newline too (the step has ended).
  void poll(Console& console, bool flush_partial = false);

 private:
  std::string path_, prefix_, pending_;
  off_t offset_ = 0;
};

}  // namespace srt::launch

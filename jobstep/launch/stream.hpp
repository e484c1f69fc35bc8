// benchmark.stream_output (srtctl v2.18): the benchmark client's own output, as it is written to
// its log in <job dir>/logs, copied line by line into the job's console, so the sweep log that
// InferenceX's driver tails shows the client's progress.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "console.hpp"

namespace srt::helper {
class SafeDir;
}

namespace srt::launch {

class OutputStream {
 public:
  // Follows the log `name` in `dir` (a regular file there, read through the directory's
  // descriptor and never through a link; `dir` outlives this).
  OutputStream(const helper::SafeDir& dir, std::string name, std::string prefix)
      : dir_(dir), name_(std::move(name)), prefix_(std::move(prefix)) {}
  // Every complete line written since the last poll, to `console`; with `flush_partial`, a last
  // line without its newline too (the step has ended).
  void poll(Console& console, bool flush_partial = false);

 private:
  const helper::SafeDir& dir_;
  std::string name_, prefix_, pending_;
  std::uint64_t offset_ = 0;
};

}  // namespace srt::launch

#include "stream.hpp"

#include <algorithm>
#include <optional>

#include "srt/safe_dir.hpp"

namespace srt::launch {

void OutputStream::poll(Console& console, bool flush_partial) {
  // A line longer than this is cut: a client printing a progress bar with no newline must not
  // grow the launcher's memory.
  constexpr std::size_t kMaxLine = 4096;
  // At most 1 MiB a poll (read_file_from's bound): the rest comes on the next.
  bool restarted = false;
  const std::optional<std::string> gained = dir_.read_file_from(name_, offset_, restarted);
  if (restarted) offset_ = 0, pending_.clear();  // replaced or truncated: from its start
  if (gained) {
    offset_ += gained->size();
    pending_ += *gained;
    for (std::size_t nl; (nl = pending_.find('\n')) != std::string::npos;) {
      console.line(prefix_ + pending_.substr(0, std::min(nl, kMaxLine)));
      pending_.erase(0, nl + 1);
    }
    if (pending_.size() > kMaxLine) {
      console.line(prefix_ + pending_.substr(0, kMaxLine));
      pending_.clear();
    }
  }
  if (flush_partial && !pending_.empty()) {
    console.line(prefix_ + pending_);
    pending_.clear();
  }
}

}  // namespace srt::launch

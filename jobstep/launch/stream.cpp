#include "stream.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "srt/unique_fd.hpp"

namespace srt::launch {

void OutputStream::poll(Console& console, bool flush_partial) {
  // A line longer than this is cut: a client printing a progress bar with no newline must not
  // grow the launcher's memory.
  constexpr std::size_t kMaxLine = 4096;
  UniqueFd fd(::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() >= 0) {
    char buf[16384];
    for (ssize_t n; (n = ::pread(fd.get(), buf, sizeof buf, offset_)) > 0;) {
      offset_ += n;
      pending_.append(buf, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = pending_.find('\n')) != std::string::npos;) {
        console.line(prefix_ + pending_.substr(0, std::min(nl, kMaxLine)));
        pending_.erase(0, nl + 1);
      }
      if (pending_.size() > kMaxLine) {
        console.line(prefix_ + pending_.substr(0, kMaxLine));
        pending_.clear();
      }
    }
  }
  if (flush_partial && !pending_.empty()) {
    console.line(prefix_ + pending_);
    pending_.clear();
  }
}

}  // namespace srt::launch

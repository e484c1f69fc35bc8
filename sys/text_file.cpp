// Reading a user-named file without trusting it: regular files only, bounded, never blocking on a
// FIFO or a device. What the text may hold is core's to say (yaml_text.cpp), not this reader's.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/unique_fd.hpp"

namespace srt {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not hang the submit path; fstat decides next.
  UniqueFd f(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!f) fail_at(path, {}, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.get(), &st) != 0) fail_at(path, {}, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail_at(path, {}, std::string("is ") + kind_of(st.st_mode) + ", not a regular file",
           "name a YAML file");
  if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    fail_at(path, {}, "is " + std::to_string(st.st_size) + " bytes; the limit is " +
                         std::to_string(max_bytes) + " bytes", "a recipe or profile is a few KB");
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t got = 0;
  while (true) {
    if (got == text.size()) {
      // The file grew after fstat: keep reading only up to the limit.
      if (text.size() > max_bytes) fail_at(path, {}, "is larger than the limit of " + std::to_string(max_bytes) + " bytes");
      text.resize(std::min(text.size() * 2, max_bytes + 1));
    }
    ssize_t n = ::read(f.get(), &text[got], text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_at(path, {}, std::string("cannot read: ") + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  if (got > max_bytes) fail_at(path, {}, "is larger than the limit of " + std::to_string(max_bytes) + " bytes");
  return text;
}

}  // namespace srt

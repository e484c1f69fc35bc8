#include "scratch.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace srt::spank_test {

namespace fs = std::filesystem;

std::string source_path(const std::string& relative) { return std::string(SRT_SOURCE_DIR) + "/" + relative; }

std::string capture_stderr(const std::function<void()>& fn) {
  char path[] = "/tmp/srt-spank-stderr-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(fd, 2);
  fn();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(path);
  return out;
}

}  // namespace srt::spank_test

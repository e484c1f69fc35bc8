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

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "srt-spank-test-XXXXXX").string();
  if (!::mkdtemp(&pattern[0])) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  const std::string p = path_ + "/" + name;
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  return p;
}

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

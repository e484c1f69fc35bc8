// A scratch directory per test, removed with everything in it afterwards: the one the unit tests
// share (report, recipe, topology, spank, helper) instead of a copy each.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

namespace srt_test {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "srt-test-") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
    text_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  const std::string& str() const { return text_; }  // for messages and YAML written by tests
  // "<dir>/<name>" as text.
  std::string operator/(const std::string& name) const { return text_ + "/" + name; }

  // Writes `text` to <dir>/<name> (truncating); returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = *this / name;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + p);
    return p;
  }

 private:
  std::filesystem::path path_;
  std::string text_;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace srt_test

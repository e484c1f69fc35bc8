// A scratch directory per test, removed afterwards: the report tests copy fixtures and break them.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace report_test {

namespace fs = std::filesystem;

inline const fs::path kFixtures = fs::path(SRT_SOURCE_DIR) / "tests/fixtures/results";
inline const std::string kName1p1d = "dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024";
inline const std::string kName2p1d = "dsv4-atom-mi355x-disagg-2p1d-dpa-tp8-isl8192-osl1024";

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "srt-report-test-XXXXXX").string();
    if (!::mkdtemp(&pattern[0])) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

  // A copy of fixture run `job` (e.g. "4101") under this directory.
  fs::path copy_run(const std::string& job) const {
    fs::copy(kFixtures / job, path_ / job, fs::copy_options::recursive);
    return path_ / job;
  }

 private:
  fs::path path_;
};

inline void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace report_test

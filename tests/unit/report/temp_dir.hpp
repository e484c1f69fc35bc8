// The report tests' fixtures and scratch directories: they copy fixture runs and break them.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.hpp"

namespace report_test {

namespace fs = std::filesystem;

inline const fs::path kFixtures = fs::path(SRT_SOURCE_DIR) / "tests/fixtures/results";
inline const std::string kName1p1d = "dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024";
inline const std::string kName2p1d = "dsv4-atom-mi355x-disagg-2p1d-dpa-tp8-isl8192-osl1024";

// A scratch directory that can hold copies of the fixture runs.
class TempDir : public srt_test::ScratchDir {
 public:
  TempDir() : ScratchDir("srt-report-test-") {}
  // A copy of fixture run `job` (e.g. "4101") under this directory.
  fs::path copy_run(const std::string& job) const {
    fs::copy(kFixtures / job, path() / job, fs::copy_options::recursive);
    return path() / job;
  }
};

inline void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

using srt_test::read_file;

}  // namespace report_test

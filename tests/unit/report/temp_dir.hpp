// The report tests' fixtures and scratch directories: they copy fixture runs and break them.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.hpp"
#include "srt/document.hpp"

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

// A benchmark_serving.py --save-result document (the keys report reads), `conc` users.
inline std::string result_json(int conc, const std::string& model = "deepseek-ai/DeepSeek-R1") {
  srt::Json r;
  r["model_id"] = model;
  r["max_concurrency"] = conc;
  r["num_prompts"] = conc * 10;
  r["completed"] = conc * 10;
  r["total_input_tokens"] = conc * 10 * 1024;
  r["total_output_tokens"] = conc * 10 * 128;
  r["duration"] = 60.0;
  r["request_throughput"] = conc / 6.0;
  r["output_throughput"] = conc * 10 * 128 / 60.0;
  r["total_token_throughput"] = conc * 10 * (1024 + 128) / 60.0;
  r["median_ttft_ms"] = 250.0;
  r["p99_ttft_ms"] = 900.0;
  r["median_tpot_ms"] = 10.0 + conc;
  r["p99_tpot_ms"] = 20.0 + conc;
  r["median_itl_ms"] = 10.0;
  r["p99_itl_ms"] = 30.0;
  r["median_e2el_ms"] = 2000.0;
  r["p99_e2el_ms"] = 4000.0;
  return r.dump();
}


}  // namespace report_test

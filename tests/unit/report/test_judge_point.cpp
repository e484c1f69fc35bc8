// srt-helper run's verdict on one result file (judge_point) is the report's: a point cut short
// (more than 5 % of its prompts failed) is failed even when some requests completed.
#include <catch2/catch.hpp>

#include <fstream>

#include "srt/submit.hpp"
#include "temp_dir.hpp"

using namespace report_test;

namespace {

fs::path fixture(const std::string& job, const std::string& name, int conc) {
  return kFixtures / job / "fixed-seq" / (name + "-c" + std::to_string(conc) + ".json");
}

// A copy of the fixture 4101's c4 (40 prompts) with `completed` requests done.
fs::path c4_with_completed(const TempDir& dir, int completed) {
  srt::Json r = srt::Json::parse(read_file(fixture("4101", kName1p1d, 4)));
  r["completed"] = completed;
  const fs::path out = dir.path() / (kName1p1d + "-c4.json");
  std::ofstream(out) << r.dump();
  return out;
}

}  // namespace

TEST_CASE("judge_point: a complete point is ok, with its counts") {
  const auto r = srt::judge_point(4, fixture("4101", kName1p1d, 4).string());
  CHECK(r.problem.empty());
  CHECK(r.completed == 40);
  CHECK(r.output_tokens == 40960);
}

TEST_CASE("judge_point: losing under 5 % of the prompts is ok, as for benchmark_serving.py") {
  CHECK(srt::judge_point(1024, fixture("4102", kName2p1d, 1024).string()).problem.empty());
}

TEST_CASE("judge_point: a point cut short fails though some requests completed") {
  TempDir dir;
  const auto r = srt::judge_point(4, c4_with_completed(dir, 3).string());
  CHECK(r.completed == 3);
  CHECK_THAT(r.problem, Catch::Contains("37 of 40 requests failed"));
}

TEST_CASE("judge_point: no completed request, no file, not a result") {
  TempDir dir;
  CHECK_THAT(srt::judge_point(4, c4_with_completed(dir, 0).string()).problem, Catch::Contains("no request completed"));
  CHECK(srt::judge_point(8, "").problem == "no result file");
  const fs::path junk = dir.path() / "x-c8.json";
  std::ofstream(junk) << "{ not json";
  CHECK_THAT(srt::judge_point(8, junk.string()).problem, Catch::Contains("not a benchmark result"));
}

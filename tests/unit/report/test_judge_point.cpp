// The validity gate (srt/validity.hpp), the one rule launch, run and report apply: a point cut
// short (more than 5 % of its prompts failed) is failed even when some requests completed, and
// a sweep is valid only when every planned point has a valid result.
#include <catch2/catch.hpp>

#include "srt/report.hpp"
#include "srt/validity.hpp"
#include "temp_dir.hpp"

using namespace report_test;

namespace {

fs::path fixture(const std::string& job, const std::string& name, int conc) {
  return kFixtures / job / "fixed-seq" / (name + "-c" + std::to_string(conc) + ".json");
}

srt::PointResult judge_fixture(int conc, const fs::path& file) {
  return srt::judge_point_text(conc, file.string(), read_file(file));
}

// The fixture 4101's c4 (40 prompts) with `completed` requests done.
std::string c4_with_completed(int completed) {
  srt::Json r = srt::Json::parse(read_file(fixture("4101", kName1p1d, 4)));
  r["completed"] = completed;
  return r.dump();
}

srt::PointResult c4(int completed) { return srt::judge_point_text(4, "x-c4.json", c4_with_completed(completed)); }

// The same document judged as the point at `conc` (judge_sweep takes points as judged).
srt::PointResult at(int conc, int completed) {
  return srt::judge_point_text(conc, "x-c" + std::to_string(conc) + ".json", c4_with_completed(completed));
}

}  // namespace

TEST_CASE("judge_point: a complete point is ok, with its counts") {
  const auto r = judge_fixture(4, fixture("4101", kName1p1d, 4));
  CHECK(r.problem.empty());
  CHECK(r.completed == 40);
  CHECK(r.output_tokens == 40960);
}

TEST_CASE("judge_point: losing under 5 % of the prompts is ok, as for benchmark_serving.py") {
  CHECK(judge_fixture(1024, fixture("4102", kName2p1d, 1024)).problem.empty());
  CHECK(c4(38).problem.empty());  // 2 of 40 failed: exactly 5 %
}

TEST_CASE("judge_point: a point cut short fails though some requests completed") {
  const auto r = c4(3);
  CHECK(r.completed == 3);
  CHECK_THAT(r.problem, Catch::Contains("37 of 40 requests failed"));
}

TEST_CASE("judge_point: no completed request, no file, not a result") {
  CHECK_THAT(c4(0).problem, Catch::Contains("no request completed"));
  CHECK(srt::missing_point(8).problem == "no result file");
  CHECK_THAT(srt::judge_point_text(8, "x-c8.json", "{ not json").problem, Catch::Contains("not a benchmark result"));
  CHECK_THAT(srt::judge_point_text(8, "x-c8.json", "[1, 2]").problem, Catch::Contains("not a benchmark result"));
  // A field of the wrong type is a problem of that point, never an exception out of the gate.
  srt::Json wrong = srt::Json::parse(c4_with_completed(40));
  wrong["completed"] = "forty";
  CHECK_FALSE(srt::judge_point_text(4, "x-c4.json", wrong.dump()).problem.empty());
}

TEST_CASE("judge_sweep: one point at 6 % failed requests fails the sweep, as run and report judge it") {
  // 100 prompts, 94 completed: 6 % failed. launch used to accept it (completed > 0, tokens > 0).
  srt::Json r = srt::Json::parse(c4_with_completed(40));
  r["num_prompts"] = 100;
  r["completed"] = 94;
  const auto six = srt::judge_point_text(8, "x-c8.json", r.dump());
  CHECK_THAT(six.problem, Catch::Contains("6 of 100 requests failed (6.0%"));
  const auto v = srt::judge_sweep({4, 8}, {{4, c4(40)}, {8, six}});
  CHECK_FALSE(v.valid);
  CHECK_THAT(v.problems(), Catch::StartsWith("c8: 6 of 100 requests failed"));
  CHECK(srt::judge_sweep({4, 8}, {{4, c4(40)}, {8, c4(40)}}).valid);
}

// (No ';' in a test name: catch_discover_tests would split it and ctest would never run it.)
TEST_CASE("judge_sweep: every planned point needs a result, and found ones beyond the plan are judged too") {
  const auto missing = srt::judge_sweep({4, 8, 16}, {{4, c4(40)}});
  CHECK_FALSE(missing.valid);
  REQUIRE(missing.points.size() == 3);
  CHECK(missing.problems() == "c8: no result file; c16: no result file");
  const auto extra = srt::judge_sweep({4}, {{4, c4(40)}, {32, at(32, 0)}});
  CHECK_FALSE(extra.valid);
  REQUIRE(extra.points.size() == 2);
  CHECK(extra.points.back().concurrency == 32);
  CHECK_THAT(extra.problems(), Catch::StartsWith("c32: no request completed"));
  CHECK(srt::judge_sweep({4}, {{4, c4(40)}, {32, at(32, 40)}}).valid);
  // Nothing planned and nothing found: not a valid sweep.
  CHECK_FALSE(srt::judge_sweep({}, {}).valid);
  // The summary is bounded.
  CHECK_THAT(srt::judge_sweep({1, 2, 3, 4, 5, 6}, {}).problems(2), Catch::EndsWith("; and 4 more"));
}

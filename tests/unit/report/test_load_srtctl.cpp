// Job directories in srtctl's layout (inferencex-runner.md (c)): the results under
// <output_dir>/<jobid>/logs/*isl*osl*/results_concurrency_<N>_gpus_<T>[_ctx_<P>_gen_<D>].json, the
// launcher's status.json and plan.json beside logs/. `report` reads them from the job directory,
// its logs/ or one *isl*osl* directory, one run per such directory, named after it.
#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/report_files.hpp"
#include "temp_dir.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_load_srtctl {

using namespace report_test;
using srt::report::PointState;

namespace {

// <job>/logs/<bench>/results_concurrency_<c>_gpus_24_ctx_16_gen_8.json for each concurrency.
fs::path write_job(const fs::path& job, const std::string& bench, std::initializer_list<int> concs) {
  const fs::path dir = job / "logs" / bench;
  fs::create_directories(dir);
  for (int c : concs)
    write_file(dir / ("results_concurrency_" + std::to_string(c) + "_gpus_24_ctx_16_gen_8.json"),
               result_json(c, "deepseek-ai/DeepSeek-V4"));
  write_file(job / "logs" / ("sweep_" + job.filename().string() + ".log"), "the batch step's output\n");
  return job;
}

}  // namespace

TEST_CASE("srtctl's layout: the job directory, its logs/ and the *isl*osl* directory give the same run") {
  TempDir tmp;
  const fs::path job = write_job(tmp.path() / "4811", "sa-bench_isl_8192_osl_1024", {4, 8, 16});
  for (const fs::path& given : {job, job / "logs", job / "logs" / "sa-bench_isl_8192_osl_1024"}) {
    INFO(given.string());
    const auto runs = srt::report::load_runs(given);
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.name == "sa-bench_isl_8192_osl_1024");
    CHECK(r.job_id == "4811");
    CHECK(r.model == "deepseek-ai/DeepSeek-V4");
    CHECK(r.gpus.total == 24);  // from the names: no plan.json here
    CHECK(r.gpus.disagg());
    REQUIRE(r.points.size() == 3);
    CHECK(r.points[0].concurrency == 4);
    CHECK(r.points[2].concurrency == 16);
    CHECK(r.count(PointState::ok) == 3);
  }
}

TEST_CASE("srtctl's layout: status.json's points beside logs/ make a point the benchmark never wrote missing") {
  TempDir tmp;
  const fs::path job = write_job(tmp.path() / "4812", "sa-bench_isl_8192_osl_1024", {4, 8});
  write_file(job / "status.json", R"({"state": "failed", "concurrencies": [4, 8, 16]})");
  const auto r = srt::report::load_runs(job).at(0);
  CHECK(r.state == "failed");
  CHECK(r.expected_source == "status.json");
  REQUIRE(r.points.size() == 3);
  CHECK(r.points[2].state == PointState::missing);
  CHECK_THAT(r.points[2].failure,
             Catch::EndsWith("/4812/logs/sa-bench_isl_8192_osl_1024/results_concurrency_16_gpus_24_ctx_16_gen_8.json"));
}

TEST_CASE("srtctl's layout: one run per *isl*osl* directory - other directories of logs/ are not results") {
  TempDir tmp;
  const fs::path job = write_job(tmp.path() / "4813", "sa-bench_isl_1024_osl_1024", {4});
  write_job(job, "sa-bench_isl_8192_osl_1024", {8, 16});
  // Neither is read: the eval's output, and a custom dataset's directory InferenceX's collector skips too.
  write_job(job, "eval_results", {32});
  write_job(job, "sa-bench_custom_agentx", {64});
  const auto runs = srt::report::load_runs(job);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].name == "sa-bench_isl_1024_osl_1024");
  CHECK(runs[0].points.size() == 1);
  CHECK(runs[1].name == "sa-bench_isl_8192_osl_1024");
  CHECK(runs[1].points.size() == 2);
}

TEST_CASE("srtctl's layout: a link planted as an *isl*osl* directory is not followed") {
  TempDir tmp;
  const fs::path elsewhere = write_job(tmp.path() / "other", "sa-bench_isl_1024_osl_1024", {4});
  const fs::path job = tmp.path() / "4814";
  fs::create_directories(job / "logs");
  fs::create_directory_symlink(elsewhere / "logs" / "sa-bench_isl_1024_osl_1024", job / "logs" / "sa-bench_isl_1_osl_1");
  try {
    srt::report::load_runs(job);
    FAIL("the linked directory was read");
  } catch (const srt::Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("no benchmark results"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("logs/*isl*osl*/"));
  }
}

}  // namespace test_load_srtctl

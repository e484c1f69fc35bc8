// Reading a sweep: points, GPU counts, expected concurrencies, and failed and missing points kept.
#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/report_files.hpp"
#include "temp_dir.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_load {

using namespace report_test;
using srt::report::PointState;

namespace {

const srt::report::Point& at(const srt::report::Run& run, int conc) {
  for (const auto& p : run.points)
    if (p.concurrency == conc) return p;
  FAIL("no point c" << conc);
  throw std::logic_error("unreachable");
}

srt::Json result_of(const std::string& job, const std::string& name, int conc) {
  return srt::Json::parse(read_file(kFixtures / job / "fixed-seq" / (name + "-c" + std::to_string(conc) + ".json")));
}

std::string error_of(const fs::path& dir, srt::report::LoadOptions o = {}) {
  try {
    srt::report::load_runs(dir, o);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("1P1D sweep: ok points, a failed point and a missing one, GPUs from plan.json") {
  const auto runs = srt::report::load_runs(kFixtures / "4101");
  REQUIRE(runs.size() == 1);
  const auto& run = runs[0];
  CHECK(run.name == kName1p1d);
  CHECK(run.job_id == "4101");
  CHECK(run.state == "failed");
  CHECK(run.model == "deepseek-ai/DeepSeek-V4-Pro");
  CHECK(run.expected_source == "status.json");
  CHECK(run.gpus.total == 16);
  CHECK(run.gpus.prefill == 8);
  CHECK(run.gpus.decode == 8);
  CHECK(run.gpus.source == "plan.json");

  std::vector<int> concs;
  for (const auto& p : run.points) concs.push_back(p.concurrency);
  CHECK(concs == std::vector<int>{4, 8, 16, 32, 64, 128});
  CHECK(run.count(PointState::ok) == 4);
  CHECK(run.count(PointState::failed) == 1);
  CHECK(run.count(PointState::missing) == 1);

  const auto& c64 = at(run, 64);
  CHECK(c64.state == PointState::failed);
  CHECK(c64.num_prompts == 640);
  CHECK(c64.failed_requests == c64.num_prompts - c64.completed);
  CHECK(c64.failed_requests > 32);  // over 5 %: the benchmark exited non-zero
  CHECK_THAT(c64.failure, Catch::Contains(std::to_string(c64.failed_requests) + " of 640 requests failed"));
  CHECK(c64.plottable());  // measured, so drawn, as a failed point

  const auto& c128 = at(run, 128);
  CHECK(c128.state == PointState::missing);
  CHECK(c128.file.empty());
  CHECK_THAT(c128.failure, Catch::Contains(kName1p1d + "-c128.json"));
  CHECK_FALSE(c128.plottable());
}

TEST_CASE("figures are InferenceX's: intvty = 1000 / median TPOT, per-GPU throughputs") {
  const auto run = srt::report::load_runs(kFixtures / "4101").at(0);
  const auto r = result_of("4101", kName1p1d, 16);
  const auto& p = at(run, 16);
  CHECK(p.state == PointState::ok);
  CHECK(p.failure.empty());
  CHECK(p.completed == r["completed"].get<long>());
  CHECK(p.failed_requests == 0);
  CHECK(p.request_throughput == Approx(r["request_throughput"].get<double>()));
  CHECK(p.interactivity == Approx(1000.0 / r["median_tpot_ms"].get<double>()));
  CHECK(p.total_per_gpu == Approx(r["total_token_throughput"].get<double>() / 16));
  CHECK(p.output_per_gpu == Approx(r["output_throughput"].get<double>() / 16));
  CHECK(p.output_per_decode_gpu == Approx(r["output_throughput"].get<double>() / 8));
  CHECK(p.input_per_prefill_gpu ==
        Approx((r["total_token_throughput"].get<double>() - r["output_throughput"].get<double>()) / 8));
  CHECK(p.ttft.median_ms == Approx(r["median_ttft_ms"].get<double>()));
  CHECK(p.ttft.p99_ms == Approx(r["p99_ttft_ms"].get<double>()));
  CHECK(p.tpot.p99_ms == Approx(r["p99_tpot_ms"].get<double>()));
  CHECK(p.itl.median_ms == Approx(r["median_itl_ms"].get<double>()));
  CHECK(p.e2el.p99_ms == Approx(r["p99_e2el_ms"].get<double>()));
  // More users, less speed each: the curve the picture shows.
  CHECK(at(run, 4).interactivity > at(run, 32).interactivity);
  CHECK(at(run, 4).total_per_gpu < at(run, 32).total_per_gpu);
}

TEST_CASE("2P1D sweep without status.json: zero completed is failed, expected = found") {
  const auto run = srt::report::load_runs(kFixtures / "4102").at(0);
  CHECK(run.name == kName2p1d);
  CHECK(run.expected_source == "result files");
  CHECK(run.gpus.total == 24);
  CHECK(run.gpus.prefill == 16);
  CHECK(run.gpus.decode == 8);
  REQUIRE(run.points.size() == 4);
  const auto& c2048 = at(run, 2048);
  CHECK(c2048.state == PointState::failed);
  CHECK(c2048.completed == 0);
  CHECK(c2048.failed_requests == 4096);
  CHECK_THAT(c2048.failure, Catch::Contains("no request completed (0 of 4096)"));
  CHECK_FALSE(c2048.plottable());
  // c1024 lost 11 of 2048 (0.5 %): under benchmark_serving.py's 5 %, so still a good point.
  CHECK(at(run, 1024).state == PointState::ok);
  CHECK(at(run, 1024).failed_requests == 11);
}

TEST_CASE("the fixed-seq directory itself finds plan.json and status.json one level up") {
  const auto run = srt::report::load_runs(kFixtures / "4101" / "fixed-seq").at(0);
  CHECK(run.gpus.source == "plan.json");
  CHECK(run.points.size() == 6);
  CHECK(run.job_id == "4101");
}

TEST_CASE("no plan.json: --gpus gives the count and says so, without it the count is unknown") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4102");
  fs::remove(run / "plan.json");
  const auto unknown = srt::report::load_runs(run).at(0);
  CHECK_FALSE(unknown.gpus.known());
  CHECK(unknown.points.size() == 4);
  CHECK_THAT(srt::report::render_table(unknown), Catch::Contains("GPUs: unknown (no plan.json"));

  srt::report::LoadOptions o;
  o.gpus = 12;
  const auto r = srt::report::load_runs(run, o).at(0);
  CHECK(r.gpus.total == 12);
  CHECK(r.gpus.source == "--gpus");
  CHECK_FALSE(r.gpus.disagg());
  CHECK(r.job_id == "4102");  // the directory's name when no plan names the job
  CHECK(r.points.at(0).total_per_gpu == Approx(r.points.at(0).total_token_throughput / 12));
  CHECK_THAT(srt::report::render_table(r), Catch::Contains("GPUs: 12 (from --gpus)"));
}

TEST_CASE("a recorded plan wins over --gpus, and the table says --gpus was ignored") {
  srt::report::LoadOptions o;
  o.gpus = 4;
  const auto r = srt::report::load_runs(kFixtures / "4101", o).at(0);
  CHECK(r.gpus.total == 16);
  CHECK_THAT(r.gpus.source, Catch::Contains("--gpus 4 ignored"));
}

TEST_CASE("malformed or mistyped result files are errors naming the file and key") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  const fs::path c8 = run / "fixed-seq" / (kName1p1d + "-c8.json");
  const std::string good = read_file(c8);

  write_file(c8, good.substr(0, good.size() / 2));  // cut short, as a killed writer leaves it
  CHECK_THAT(error_of(run), Catch::Contains(c8.string()) && Catch::Contains("not valid JSON"));

  auto doc = srt::Json::parse(good);
  doc["completed"] = "80";
  write_file(c8, doc.dump());
  CHECK_THAT(error_of(run), Catch::Contains(c8.string()) && Catch::Contains("completed: expected a number"));

  doc = srt::Json::parse(good);
  doc.erase("output_throughput");
  write_file(c8, doc.dump());
  CHECK_THAT(error_of(run), Catch::Contains(c8.string()) && Catch::Contains("output_throughput: missing"));

  write_file(c8, "[1, 2]");
  CHECK_THAT(error_of(run), Catch::Contains(c8.string()) && Catch::Contains("expected a JSON object"));

  write_file(run / "plan.json", "{\"processes\": 3}");
  write_file(c8, good);
  CHECK_THAT(error_of(run), Catch::Contains("plan.json") && Catch::Contains("processes"));
}

TEST_CASE("status.json: recorded exit codes fail a point, a bad status.json is named") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  write_file(run / "status.json",
             R"({"state": "failed", "concurrencies": [4, 8, 16, 32, 64, 128], "benchmark_exit_codes": {"8": 3}})");
  const auto r = srt::report::load_runs(run).at(0);
  CHECK(at(r, 8).state == PointState::failed);
  CHECK_THAT(at(r, 8).failure, Catch::Contains("benchmark exited with status 3"));
  CHECK(at(r, 4).state == PointState::ok);

  write_file(run / "status.json", R"({"concurrencies": "4x8"})");
  CHECK_THAT(error_of(run), Catch::Contains("status.json") && Catch::Contains("concurrencies"));
  write_file(run / "status.json", R"({"concurrencies": [4, -8]})");
  CHECK_THAT(error_of(run), Catch::Contains("expected positive integers, got -8"));
}

TEST_CASE("status.json: the launcher's per-point verdicts name why a point is missing or failed") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  // c16 stalled (the client wrote nothing), c32 onwards never ran; c8 has a fine file but the
  // launcher cut its step as stalled after the client wrote it.
  for (int c : {16, 32, 64, 128}) fs::remove(run / "fixed-seq" / (std::string(kName1p1d) + "-c" + std::to_string(c) + ".json"));
  write_file(run / "status.json", R"({"state": "failed", "concurrencies": [4, 8, 16, 32, 64, 128],
    "benchmark_points": {"4": {"state": "ok"}, "8": {"state": "stalled", "reason": "nothing completed for 20 s"},
      "16": {"state": "stalled", "reason": "nothing completed for 20 s"},
      "32": {"state": "not_run", "reason": "the sweep stopped after c16 stalled"},
      "64": {"state": "not_run", "reason": "the sweep stopped after c16 stalled"}}})");
  const auto r = srt::report::load_runs(run).at(0);
  CHECK(at(r, 4).state == PointState::ok);
  CHECK(at(r, 8).state == PointState::failed);
  CHECK(at(r, 8).failure == "stalled: nothing completed for 20 s");
  CHECK(at(r, 16).state == PointState::missing);
  CHECK_THAT(at(r, 16).failure, Catch::StartsWith("stalled: nothing completed for 20 s (no result file "));
  CHECK_THAT(at(r, 32).failure, Catch::StartsWith("not run: the sweep stopped after c16 stalled (no result file "));
  CHECK_THAT(at(r, 128).failure, Catch::StartsWith("no result file "));  // no verdict recorded: as before

  write_file(run / "status.json", R"({"benchmark_points": {"16": "stalled"}})");
  CHECK_THAT(error_of(run), Catch::Contains("benchmark_points.16") && Catch::Contains("expected {\"state\""));
  write_file(run / "status.json", R"({"benchmark_points": {"c16": {"state": "ok"}}})");
  CHECK_THAT(error_of(run), Catch::Contains("benchmark_points.c16") && Catch::Contains("must be a concurrency"));
  write_file(run / "status.json", R"({"benchmark_points": [1]})");
  CHECK_THAT(error_of(run), Catch::Contains("benchmark_points"));
}

TEST_CASE("status.json: a point the launcher found contaminated by another client's requests is failed, saying so") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  write_file(run / "status.json", R"({"state": "failed", "concurrencies": [4, 8, 16, 32, 64, 128],
    "benchmark_points": {"4": {"state": "contaminated", "reason": "the router's mesh_http_requests_total grew by 107 during the point, and the benchmark sent 102",
      "request_audit": {"counter": "the router's mesh_http_requests_total", "seen": 107, "requested": 100, "warmups": 2, "completed": 100}}}})");
  const auto r = srt::report::load_runs(run).at(0);
  CHECK(at(r, 4).state == PointState::failed);
  CHECK_THAT(at(r, 4).failure, Catch::StartsWith("contaminated: the router's mesh_http_requests_total grew by 107"));
  CHECK(at(r, 8).state == PointState::ok);
}

TEST_CASE("logs/worker_restarts.json: the relaunches on one line, a bad record said, never fatal") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  CHECK(srt::report::load_runs(run).at(0).worker_restarts.empty());  // no record: no line
  fs::create_directories(run / "logs");
  write_file(run / "logs" / "worker_restarts.json", R"({"total_restarts": 1, "endpoints": {}, "events": [
    {"worker": "decode_0", "mode": "decode", "index": 0, "attempt": 1, "exit_code": 1,
     "exited_at": "2026-12-05T10:00:00Z", "outcome": "ready", "rerun": "c8"},
    {"worker": "decode_0_r1", "exit_code": 1, "exited_at": "2026-12-05T10:05:00Z", "outcome": "exhausted", "rerun": null}]})");
  const auto r = srt::report::load_runs(run).at(0);
  CHECK(r.worker_restarts ==
        "decode_0 exit 1 at 2026-12-05T10:00:00Z: ready, c8 run again; decode_0_r1 exit 1 at 2026-12-05T10:05:00Z: exhausted");
  CHECK_THAT(srt::report::render_table(r), Catch::Contains("worker restarts: decode_0 exit 1 at"));
  // What a container's root could write: a terminal escape in a name is shown escaped.
  write_file(run / "logs" / "worker_restarts.json", "{\"events\": [{\"worker\": \"x\\u001b[2J\", \"exit_code\": 1}]}");
  CHECK_THAT(srt::report::load_runs(run).at(0).worker_restarts, Catch::StartsWith("\"x\\u001b[2J\" exit 1"));
  write_file(run / "logs" / "worker_restarts.json", "{\"events\": 3}");
  CHECK_THAT(srt::report::load_runs(run).at(0).worker_restarts, Catch::Contains("has no events list"));
  write_file(run / "logs" / "worker_restarts.json", "{not json");
  CHECK_THAT(srt::report::load_runs(run).at(0).worker_restarts, Catch::StartsWith("unreadable: "));
}

TEST_CASE("zero output tokens with completed requests is a failed point") {
  auto doc = result_of("4101", kName1p1d, 4);
  doc["total_output_tokens"] = 0;
  doc["output_throughput"] = 0.0;
  srt::report::GpuCount g;
  g.total = 16;
  const auto p = srt::report::point_from_result(doc, "x.json", 4, g);
  CHECK(p.state == PointState::failed);
  CHECK(p.failure == "no output tokens");
}

TEST_CASE("a sweep that wrote nothing still lists every expected point as missing") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  fs::remove_all(run / "fixed-seq");
  fs::create_directory(run / "fixed-seq");
  const auto r = srt::report::load_runs(run).at(0);
  CHECK(r.name == "job 4101");
  CHECK(r.points.size() == 6);
  CHECK(r.count(PointState::missing) == 6);

  fs::remove(run / "status.json");
  CHECK_THAT(error_of(run), Catch::Contains("no benchmark results"));
  CHECK_THAT(error_of(tmp.path() / "nowhere"), Catch::Contains("not a directory"));
}

TEST_CASE("two result files for one concurrency are refused") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  fs::copy_file(run / "fixed-seq" / (kName1p1d + "-c8.json"), run / "fixed-seq" / (kName1p1d + "-c08.json"));
  CHECK_THAT(error_of(run), Catch::Contains("a second result for c8"));
}

}  // namespace test_load

// Results trees without plan.json, written here: InferenceX's renamed files give the GPU count
// in their names; without any count the run is still read and shown, per-GPU figures unknown.
#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/report_files.hpp"
#include "temp_dir.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_load_inferencex {

using namespace report_test;
using srt::report::PointState;

namespace {

// <dir>/<prefix><conc><suffix> for each concurrency.
fs::path write_tree(const fs::path& dir, const std::string& prefix, const std::string& suffix,
                    std::initializer_list<int> concs) {
  fs::create_directories(dir);
  for (int c : concs) write_file(dir / (prefix + std::to_string(c) + suffix), result_json(c));
  return dir;
}

std::string error_of(const fs::path& dir, srt::report::LoadOptions o = {}) {
  try {
    srt::report::load_runs(dir, o);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "<no error>";
}

const std::string kDisagg = "dsr1_fp8_srt-4711_conc";
const std::string kDisaggTail = "_gpus_24_ctx_16_gen_8.json";

}  // namespace

TEST_CASE("InferenceX's renamed files: the GPU count and split come from the names") {
  TempDir tmp;
  const fs::path dir = write_tree(tmp.path() / "4711", kDisagg, kDisaggTail, {4, 8, 16});
  const auto runs = srt::report::load_runs(dir);
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.name == "dsr1_fp8_srt-4711_gpus_24_ctx_16_gen_8");
  CHECK(r.gpus.total == 24);
  CHECK(r.gpus.prefill == 16);
  CHECK(r.gpus.decode == 8);
  CHECK(r.gpus.source == "result file names");
  REQUIRE(r.points.size() == 3);
  const auto& p = r.points[1];
  CHECK(p.concurrency == 8);
  CHECK(p.state == PointState::ok);
  CHECK(p.total_per_gpu == Approx(p.total_token_throughput / 24));
  CHECK(p.output_per_decode_gpu == Approx(p.output_throughput / 8));
  CHECK(p.plottable());
  CHECK_THAT(srt::report::render_table(r),
             Catch::Contains("GPUs: 24 = 16 prefill + 8 decode (from result file names)"));
  CHECK(srt::report::plot_input(runs, "/out", {})["runs"].size() == 1);

  // A missing point is named as the launcher would have named it.
  write_file(dir / "status.json", R"({"concurrencies": [4, 8, 16, 32]})");
  const auto again = srt::report::load_runs(dir).at(0);
  CHECK(again.points.back().state == PointState::missing);
  CHECK_THAT(again.points.back().failure, Catch::EndsWith("/4711/" + kDisagg + "32" + kDisaggTail));
}

TEST_CASE("the benchmark scripts' names, aggregated: _gpus_<T> at the end") {
  TempDir tmp;
  const fs::path dir = write_tree(tmp.path() / "agg", "results_concurrency_", "_gpus_8.json", {1, 2});
  const auto r = srt::report::load_runs(dir).at(0);
  CHECK(r.gpus.total == 8);
  CHECK_FALSE(r.gpus.disagg());
  CHECK(r.points.size() == 2);
  CHECK(r.points[0].total_per_gpu == Approx(r.points[0].total_token_throughput / 8));
}

TEST_CASE("srt-slurm's <name>-c<N>.json beside renamed copies: the copies are not read twice") {
  TempDir tmp;
  const fs::path dir = write_tree(tmp.path() / "both", "mine-c", ".json", {4, 8});
  write_tree(dir, kDisagg, kDisaggTail, {4, 8});
  const auto runs = srt::report::load_runs(dir);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].name == "mine");
  CHECK_FALSE(runs[0].gpus.known());  // "mine-c4.json" holds no count, and only those are read
}

TEST_CASE("no plan.json and no count in the names: read and shown, per-GPU figures unknown") {
  TempDir tmp;
  const fs::path dir = write_tree(tmp.path() / "4712" / "fixed-seq", "mine-c", ".json", {4, 8});
  const auto runs = srt::report::load_runs(tmp.path() / "4712");
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK_FALSE(r.gpus.known());
  CHECK(r.gpus.source.empty());
  CHECK(r.count(PointState::ok) == 2);  // the results are valid: the count is not theirs to give
  CHECK(r.points[0].total_per_gpu == 0);
  CHECK_FALSE(r.points[0].plottable());

  const std::string t = srt::report::render_table(r);
  CHECK_THAT(t, Catch::Contains("GPUs: unknown (no plan.json, no _gpus_<N> in the result file names, no --gpus)"));
  CHECK_THAT(t, Catch::Contains("unknown  unknown"));  // tok/s/gpu and out/gpu of each row
  CHECK_THAT(t, Catch::Contains("2 point(s): 2 ok, 0 failed, 0 missing"));

  const auto j = srt::report::runs_to_json(runs);
  CHECK(j[0]["gpus"]["source"] == "unknown");
  CHECK(j[0]["points"][0]["tput_per_gpu"].is_null());
  CHECK(j[0]["points"][0]["output_tput_per_gpu"].is_null());
  CHECK(j[0]["points"][0]["output_throughput"].get<double>() > 0);

  CHECK(srt::report::plot_input(runs, "/out", {})["runs"].empty());
  CHECK_THROWS_WITH(srt::report::write_pictures(runs, tmp.path() / "out"),
                    Catch::Contains("GPU count of every run is unknown") && Catch::Contains("--gpus N"));
  CHECK_FALSE(fs::exists(tmp.path() / "out"));
}

TEST_CASE("the --gpus flag fills in when the names hold no count, and names that hold one win over it") {
  TempDir tmp;
  srt::report::LoadOptions o;
  o.gpus = 12;
  const fs::path plain = write_tree(tmp.path() / "plain", "mine-c", ".json", {4});
  CHECK(srt::report::load_runs(plain, o).at(0).gpus.source == "--gpus");
  CHECK(srt::report::load_runs(plain, o).at(0).gpus.total == 12);

  const fs::path named = write_tree(tmp.path() / "named", kDisagg, kDisaggTail, {4});
  const auto g = srt::report::load_runs(named, o).at(0).gpus;
  CHECK(g.total == 24);
  CHECK_THAT(g.source, Catch::Contains("result file names (--gpus 12 ignored"));
}

TEST_CASE("a tree whose names disagree, or hold a count that is none, is refused by file name") {
  TempDir tmp;
  const fs::path dir = write_tree(tmp.path() / "mixed", kDisagg, kDisaggTail, {4});
  write_tree(dir, kDisagg, "_gpus_16_ctx_8_gen_8.json", {8});
  CHECK_THAT(error_of(dir), Catch::Contains(kDisagg + "4" + kDisaggTail) &&
                                Catch::Contains(kDisagg + "8_gpus_16_ctx_8_gen_8.json") &&
                                Catch::Contains("says 24"));

  const fs::path zero = write_tree(tmp.path() / "zero", "run_conc", "_gpus_0.json", {4});
  CHECK_THAT(error_of(zero), Catch::Contains("run_conc4_gpus_0.json") && Catch::Contains("must be 1 or more"));
}

TEST_CASE("a run whose fingerprints show no GPU on any worker's node is a stand-in model") {
  TempDir tmp;
  auto run_dir = [&](const std::string& name, const std::string& fingerprints) {
    const fs::path dir = tmp.path() / name;
    write_tree(dir / "fixed-seq", kDisagg, kDisaggTail, {4, 8});
    if (!fingerprints.empty()) write_file(dir / "fingerprints.json", fingerprints);
    return dir;
  };
  auto prints = [](int prefill_gpus, int decode_gpus) {
    srt::Json j;
    j["fingerprints"] = srt::Json::array();
    j["fingerprints"].push_back({{"role", "prefill"}, {"gpu", {{"count", prefill_gpus}}}});
    j["fingerprints"].push_back({{"role", "decode"}, {"gpu", {{"count", decode_gpus}}}});
    j["fingerprints"].push_back({{"role", "router"}, {"gpu", {{"count", 0}}}});
    return j.dump();
  };
  const auto lab = srt::report::load_runs(run_dir("lab", prints(0, 0)));
  REQUIRE(lab.size() == 1);
  CHECK(lab[0].without_gpus);
  const std::string table = srt::report::render_table(lab[0]);
  CHECK(table.find(srt::report::kStandInCaveat) != std::string::npos);
  CHECK(srt::report::plot_input(lab, tmp.path(), {}).value("caveat", "") == srt::report::kStandInCaveat);

  CHECK_FALSE(srt::report::load_runs(run_dir("gpus", prints(8, 8)))[0].without_gpus);
  CHECK_FALSE(srt::report::load_runs(run_dir("one-gpu-node", prints(0, 8)))[0].without_gpus);
  CHECK_FALSE(srt::report::load_runs(run_dir("none", ""))[0].without_gpus);
  // Another shape is no caveat (and no error): only the run's own record can claim it.
  CHECK_FALSE(srt::report::load_runs(run_dir("odd", R"({"fingerprints": [{"role": "decode", "gpu": "none"}]})"))[0].without_gpus);
  CHECK_FALSE(srt::report::load_runs(run_dir("routers-only", R"({"fingerprints": [{"role": "router", "gpu": {"count": 0}}]})"))[0].without_gpus);
}

}  // namespace test_load_inferencex

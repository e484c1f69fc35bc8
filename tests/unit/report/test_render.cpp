// What people and srt-helper run see: the table, the JSON, and the picture's input.
#include <catch2/catch.hpp>

#include <sstream>

#include "srt/report.hpp"
#include "srt/report_files.hpp"
#include "temp_dir.hpp"

using namespace report_test;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The table row of concurrency `conc` (starts with right-aligned "cN").
std::string row(const std::string& table, int conc) {
  const std::string tag = "c" + std::to_string(conc) + " ";
  for (const auto& l : lines(table)) {
    const auto first = l.find_first_not_of(' ');
    if (first != std::string::npos && first > 0 && l.compare(first, tag.size(), tag) == 0) return l;
  }
  return "<no row>";
}

}  // namespace

TEST_CASE("the table has one row per point, failed and missing ones marked, with reasons") {
  const auto run = srt::report::load_runs(kFixtures / "4101").at(0);
  const std::string t = srt::report::render_table(run);
  CHECK_THAT(t, Catch::Contains("run " + kName1p1d + "  job 4101"));
  CHECK_THAT(t, Catch::Contains("GPUs: 16 = 8 prefill + 8 decode (from plan.json)"));
  CHECK_THAT(t, Catch::Contains("concurrencies: 4 8 16 32 64 128 (expected from status.json)"));
  CHECK_THAT(row(t, 4), Catch::Contains(" ok ") && Catch::Contains("40/40"));
  CHECK_THAT(row(t, 64), Catch::Contains("FAILED") && Catch::Contains("/640"));
  CHECK_THAT(row(t, 128), Catch::Contains("MISSING"));
  CHECK_THAT(t, Catch::Contains("c128 MISSING: no result file"));
  CHECK_THAT(t, Catch::Contains("c64 FAILED: "));
  CHECK_THAT(t, Catch::Contains("6 point(s): 4 ok, 1 failed, 1 missing"));
  // The interactivity column holds 1000 / median TPOT with two decimals.
  char want[32];
  std::snprintf(want, sizeof want, " %.2f ", run.points.at(0).interactivity);
  CHECK_THAT(row(t, 4), Catch::Contains(want));
}

TEST_CASE("JSON keeps every point with its state and InferenceX's names") {
  const auto j = srt::report::runs_to_json(srt::report::load_runs(kFixtures / "4102"));
  REQUIRE(j.size() == 1);
  const auto& pts = j[0]["points"];
  REQUIRE(pts.size() == 4);
  CHECK(pts[3]["concurrency"] == 2048);
  CHECK(pts[3]["state"] == "failed");
  CHECK(pts[3]["failed"] == 4096);
  CHECK(pts[0]["state"] == "ok");
  CHECK(pts[0]["tput_per_gpu"].get<double>() == Approx(pts[0]["total_token_throughput"].get<double>() / 24));
  CHECK(pts[0]["output_tput_per_gpu"].get<double>() == Approx(pts[0]["output_throughput"].get<double>() / 8));
  CHECK(j[0]["gpus"]["disagg"] == true);
}

TEST_CASE("picture input: one drawn point per measured concurrency, the rest listed") {
  std::vector<srt::report::Run> runs = srt::report::load_runs(kFixtures / "4101");
  for (auto& r : srt::report::load_runs(kFixtures / "4102")) runs.push_back(std::move(r));
  const auto in = srt::report::plot_input(runs, "/out", {});
  CHECK(in["png"] == "/out/throughput_vs_interactivity.png");
  CHECK(in["svg"] == "/out/throughput_vs_interactivity.svg");
  REQUIRE(in["runs"].size() == 2);
  const auto& a = in["runs"][0];
  CHECK(a["label"] == kName1p1d + " (job 4101)");
  REQUIRE(a["points"].size() == 5);  // c4..c64; c64 drawn as failed
  CHECK(a["points"][4]["concurrency"] == 64);
  CHECK(a["points"][4]["failed"] == true);
  CHECK(a["points"][0]["x"].get<double>() == Approx(runs[0].points[0].interactivity));
  CHECK(a["points"][0]["y"].get<double>() == Approx(runs[0].points[0].total_per_gpu));
  REQUIRE(a["not_drawn"].size() == 1);
  CHECK_THAT(a["not_drawn"][0].get<std::string>(), Catch::Equals("c128 missing (no result file)"));
  const auto& b = in["runs"][1];
  CHECK(b["points"].size() == 3);
  REQUIRE(b["not_drawn"].size() == 1);
  CHECK_THAT(b["not_drawn"][0].get<std::string>(), Catch::Contains("c2048 failed: no request completed"));

  srt::report::PictureOptions o;
  o.y_metric = "output";
  const auto out = srt::report::plot_input(runs, "/out", o);
  CHECK(out["runs"][0]["points"][0]["y"].get<double>() == Approx(runs[0].points[0].output_per_gpu));
  o.y_metric = "speed";
  CHECK_THROWS_WITH(srt::report::plot_input(runs, "/out", o), Catch::Contains("unknown picture metric 'speed'"));
}

TEST_CASE("write_pictures: a plotter that cannot run is an error saying which and why") {
  TempDir tmp;
  srt::report::PictureOptions o;
  o.python = (tmp.path() / "no-python").string();
  const auto runs = srt::report::load_runs(kFixtures / "4101");
  CHECK_THROWS_WITH(srt::report::write_pictures(runs, tmp.path() / "out", o),
                    Catch::Contains("cannot run " + o.python) && Catch::Contains("python3-matplotlib"));
  // A plotter that fails passes its own message on.
  o.python = "/bin/false";
  CHECK_THROWS_WITH(srt::report::write_pictures(runs, tmp.path() / "out", o),
                    Catch::Contains("/bin/false exited with status 1"));
}

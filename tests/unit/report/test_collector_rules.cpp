// InferenceX's collector rules on a results tree in srtctl's layout (srt/collector_rules.hpp):
// a missing, unexpected or duplicate point, max_concurrency against the file name, a forged
// benchmark_outcome and more than 5 % failed requests each fail the tree.
#include <catch2/catch.hpp>

#include <string>

#include "srt/collector_rules.hpp"
#include "srt/expected_points.hpp"

namespace {

using srt::report::TreeFile;

// A result as InferenceX's benchmark_serving.py saves it, with srtctl's benchmark_outcome.
std::string result(int conc, int requested, int completed, bool outcome = true) {
  const int failed = requested - completed;
  const bool over = double(failed) / requested > 0.05;
  std::string r = "{\"model_id\": \"m\", \"max_concurrency\": " + std::to_string(conc) +
                  ", \"num_prompts\": " + std::to_string(requested) + ", \"completed\": " + std::to_string(completed) +
                  ", \"total_output_tokens\": " + std::to_string(completed * 100) +
                  ", \"request_throughput\": 1.0, \"output_throughput\": 1.0, \"total_token_throughput\": 2.0";
  if (outcome)
    r += ", \"benchmark_outcome\": {\"status\": \"" + std::string(over ? "failed" : "passed") +
         "\", \"requested\": " + std::to_string(requested) + ", \"completed\": " + std::to_string(completed) +
         ", \"failed\": " + std::to_string(failed) + ", \"max_failure_rate\": 0.05}";
  return r + "}";
}

TreeFile file(int conc, const std::string& text, const std::string& dir = "sa-bench_isl_1024_osl_1024") {
  return {"logs/" + dir + "/results_concurrency_" + std::to_string(conc) + "_gpus_16_ctx_8_gen_8.json", text};
}

}  // namespace

TEST_CASE("sa-bench result names parse as the collector's regex reads them") {
  const auto n = srt::report::parse_sa_bench_name("results_concurrency_64_gpus_16_ctx_8_gen_8.json");
  REQUIRE(n);
  CHECK(n->concurrency == 64);
  CHECK(n->gpus == 16);
  CHECK(n->ctx == 8);
  CHECK(n->gen == 8);
  const auto agg = srt::report::parse_sa_bench_name("results_concurrency_4_gpus_8.json");
  REQUIRE(agg);
  CHECK(agg->ctx == -1);
  CHECK_FALSE(srt::report::parse_sa_bench_name("results_concurrency_4_gpus_8_ctx_4_gen_4.pytorch.json"));
  CHECK_FALSE(srt::report::parse_sa_bench_name("lab-c4.json"));
}

TEST_CASE("CONC_LIST is read as the workflow writes it") {
  CHECK(*srt::report::parse_conc_list("4 8 16") == std::vector<int>{4, 8, 16});
  CHECK(*srt::report::parse_conc_list("4,8") == std::vector<int>{4, 8});
  CHECK(srt::report::parse_conc_list("")->empty());
  CHECK_FALSE(srt::report::parse_conc_list("4 x"));
  CHECK_FALSE(srt::report::parse_conc_list("0"));
}

TEST_CASE("a complete tree passes") {
  const auto v = srt::report::judge_collector_tree({file(4, result(4, 40, 40)), file(8, result(8, 80, 78))}, {4, 8});
  INFO(v.problems().size());
  CHECK(v.valid);
  CHECK(v.problems().empty());
}

TEST_CASE("a missing CONC_LIST point fails the tree") {
  const auto v = srt::report::judge_collector_tree({file(4, result(4, 40, 40))}, {4, 8});
  CHECK_FALSE(v.valid);
  CHECK(v.missing == std::vector<int>{8});
  CHECK(v.problems().front() == "missing concurrency points: 8");
}

TEST_CASE("an unexpected or duplicate point fails the tree") {
  const auto unexpected = srt::report::judge_collector_tree({file(4, result(4, 40, 40)), file(16, result(16, 160, 160))}, {4});
  CHECK_FALSE(unexpected.valid);
  CHECK(unexpected.unexpected == std::vector<int>{16});
  const auto dup = srt::report::judge_collector_tree(
      {file(4, result(4, 40, 40)), file(4, result(4, 40, 40), "sa-bench_isl_8192_osl_1024")}, {4});
  CHECK_FALSE(dup.valid);
  CHECK(dup.duplicate == std::vector<int>{4});
}

TEST_CASE("6 % failed requests fail the point, exactly 5 % passes") {
  const auto six = srt::report::judge_collector_tree({file(10, result(10, 100, 94))}, {10});
  CHECK_FALSE(six.valid);
  const auto five = srt::report::judge_collector_tree({file(10, result(10, 100, 95))}, {10});
  CHECK(five.valid);
  // Without benchmark_outcome srt-spank's own gate still counts num_prompts against completed.
  const auto legacy = srt::report::judge_collector_tree({file(10, result(10, 100, 94, false))}, {10});
  CHECK_FALSE(legacy.valid);
}

TEST_CASE("max_concurrency must be the file name's N") {
  CHECK(srt::report::collector_point_problem(result(8, 80, 80), 8).empty());
  CHECK(srt::report::collector_point_problem(result(8, 80, 80), 16).find("max_concurrency 8 is not the file name's 16") !=
        std::string::npos);
  CHECK(srt::report::collector_point_problem("{\"max_concurrency\": 8.0}", 8).empty());
  CHECK_FALSE(srt::report::collector_point_problem("{}", 8).empty());
}

TEST_CASE("a forged benchmark_outcome fails the point") {
  // "passed" although 10 of 100 failed.
  std::string forged = result(10, 100, 90);
  forged.replace(forged.find("\"failed\", \"requested\""), 8, "\"passed\"");
  CHECK(srt::report::collector_point_problem(forged, 10).find("does not agree with its counts") != std::string::npos);
  // Counts as floats, and a top-level completed that differs from the outcome's.
  CHECK_FALSE(srt::report::collector_point_problem(
                  "{\"max_concurrency\": 1, \"benchmark_outcome\": {\"status\": \"passed\", \"requested\": 10.0, "
                  "\"completed\": 10, \"failed\": 0, \"max_failure_rate\": 0.05}}",
                  1)
                  .empty());
  std::string skew = result(4, 40, 40);
  skew.replace(skew.find("\"completed\": 40,"), 16, "\"completed\": 39,");
  CHECK(srt::report::collector_point_problem(skew, 4).find("differs from benchmark_outcome's") != std::string::npos);
}

TEST_CASE("the expected points: the grid, else CONC_LIST as the benchmark step sees it") {
  srt::Recipe r;
  CHECK(srt::expected_points(r, nullptr).points.empty());  // nothing names them
  CHECK(srt::expected_points(r, "4 8").points == std::vector<int>{4, 8});
  CHECK(srt::expected_points(r, "4 8").source == "the job's CONC_LIST");
  r.environment = {{"CONC_LIST", "16,32"}};
  CHECK(srt::expected_points(r, "4 8").points == std::vector<int>{16, 32});
  CHECK(srt::expected_points(r, nullptr).source == "environment.CONC_LIST");
  r.benchmark.env = {{"CONC_LIST", "64"}};  // the step's own environment is set last
  CHECK(srt::expected_points(r, "4 8").points == std::vector<int>{64});
  CHECK(srt::expected_points(r, nullptr).source == "benchmark.env.CONC_LIST");
  r.benchmark.env = {{"CONC_LIST", "64 x"}};
  const srt::ExpectedPoints bad = srt::expected_points(r, nullptr);
  CHECK(bad.points.empty());
  CHECK(bad.problem == "benchmark.env.CONC_LIST '64 x' is not a list of positive integers");
  r.benchmark.concurrencies = {1, 2};  // a grid wins over every CONC_LIST
  CHECK(srt::expected_points(r, "4 8").points == std::vector<int>{1, 2});
  CHECK(srt::expected_points(r, nullptr).source == "benchmark.concurrencies");
}

TEST_CASE("an AgentX variant names its one point with CONC when nothing names a CONC_LIST") {
  srt::Recipe r;
  r.benchmark.env = {{"CONC", "16"}};
  CHECK(srt::expected_points(r, nullptr).points == std::vector<int>{16});
  CHECK(srt::expected_points(r, nullptr).source == "benchmark.env.CONC");
  CHECK(srt::expected_points(srt::Recipe{}, nullptr, "8").source == "the job's CONC");
  CHECK(srt::expected_points(r, "4 8").points == std::vector<int>{4, 8});  // srt_agentic.sh: ${CONC_LIST:-$CONC}
  r.benchmark.env = {{"AIPERF_FAILED_REQUEST_THRESHOLD", "0.25"}};
  CHECK(srt::agentic_max_error_rate(r, nullptr) == 0.25);
  CHECK(srt::agentic_max_error_rate(srt::Recipe{}, "0.5") == 0.5);
  for (const char* bad : {"", "x", "1.5", "-0.1", "0.1x", "nan"})
    CHECK(srt::agentic_max_error_rate(srt::Recipe{}, bad) == srt::report::kAgenticMaxErrorRate);
}

namespace {

// An AgentX aggregate as InferenceX's process_agentic_result writes it (the keys its tests list;
// the values a small run's).
std::string agentic(int conc, long successful, long profiled, long error_dropped) {
  return "{\"scenario_type\": \"agentic-coding\", \"conc\": " + std::to_string(conc) +
         ", \"model\": \"m\", \"framework\": \"atom\", \"num_requests_total\": " + std::to_string(profiled + error_dropped) +
         ", \"num_requests_successful\": " + std::to_string(successful) +
         ", \"request_accounting\": {\"records_total\": " + std::to_string(profiled + error_dropped + 3) +
         ", \"records_profiled\": " + std::to_string(profiled) + ", \"records_dropped_total\": " +
         std::to_string(error_dropped + 3) + ", \"records_warmup_dropped\": 3, \"records_error_dropped\": " +
         std::to_string(error_dropped) + ", \"error_categories\": {}}" +
         ", \"request_metrics\": {\"throughput\": {\"input\": 500.0, \"output\": 40.0, \"total\": 540.0, "
         "\"duration_seconds\": 10.0, \"per_gpu\": {}}}}";
}

}  // namespace

TEST_CASE("an AgentX aggregate is a point of its own, judged as InferenceX's workflow judges it") {
  using srt::report::judge_collector_tree;
  // Single-node: $AGENTIC_OUTPUT_DIR=/logs, the workflow's RESULT_FILENAME as its name.
  auto v = judge_collector_tree({{"logs/dsv4_fp4_atom_tp8_conc16.json", agentic(16, 40, 40, 0)},
                                 {"logs/preflight_agg.json", "{\"engine\": {}}"}},
                                {16});
  CHECK(v.valid);
  REQUIRE(v.points.size() == 1);
  CHECK(v.points[0].completed == 40);
  CHECK(v.points[0].output_tokens == 400);
  // A name without _conc<N>: the point is the aggregate's own conc.
  CHECK(judge_collector_tree({{"logs/agg_dsv4.json", agentic(4, 10, 10, 0)}}, {4}).valid);
  CHECK_FALSE(judge_collector_tree({{"logs/agg_dsv4.json", agentic(4, 10, 10, 0)}}, {8}).valid);

  // No success, errors over the threshold (warmup drops are not errors), conc against the name.
  v = judge_collector_tree({{"logs/x_conc4.json", agentic(4, 0, 0, 0)}}, {4});
  CHECK_FALSE(v.valid);
  CHECK_THAT(v.problems().back(), Catch::Contains("no request succeeded"));
  CHECK(judge_collector_tree({{"logs/x.json", agentic(4, 90, 90, 10)}}, {4}).valid);  // exactly 10 %
  v = judge_collector_tree({{"logs/x.json", agentic(4, 89, 89, 11)}}, {4});
  CHECK_FALSE(v.valid);
  CHECK_THAT(v.problems().back(), Catch::Contains("11 of 100 requests failed (11.0 %, more than the 10.0 % allowed)"));
  CHECK(judge_collector_tree({{"logs/x.json", agentic(4, 89, 89, 11)}}, {4}, 0.2).valid);
  v = judge_collector_tree({{"logs/x_conc8.json", agentic(4, 10, 10, 0)}}, {8});
  CHECK_FALSE(v.valid);
  CHECK_THAT(v.problems().back(), Catch::Contains("conc 4 is not the point's 8"));
  // The marker InferenceX's scripts leave beside a run they call invalid.
  v = judge_collector_tree({{"logs/x.json", agentic(4, 10, 10, 0)}, {"logs/RUN_INVALID.json", "{}"}}, {4});
  CHECK_FALSE(v.valid);
  CHECK_THAT(v.problems().back(), Catch::Contains("RUN_INVALID.json"));
  // Anything else that is JSON in logs/ is not a point; junk and hostile values are not either.
  for (const std::string text : {"[]", "{\"scenario_type\": \"agentic-coding\"}", "{\"scenario_type\": \"agentic-coding\", \"conc\": \"4\"}",
                                 "{\"scenario_type\": \"agentic-coding\", \"conc\": 1e300}", "not json", "{\"conc\": 4}"})
    CHECK(judge_collector_tree({{"logs/x.json", text}}, {}).expected.empty());
  // Counts of the wrong type or past any run's size fail the point, never the reader.
  for (const std::string bad : {"true", "-1", "1.5", "99999999999999999999", "\"10\""}) {
    std::string text = agentic(4, 10, 10, 0);
    text.replace(text.find("\"num_requests_successful\": 10"), 29, "\"num_requests_successful\": " + bad);
    INFO(text);
    CHECK_FALSE(judge_collector_tree({{"logs/x.json", text}}, {4}).valid);
  }
}

TEST_CASE("a single-node lane's logs/<RESULT_FILENAME>.json is its point, named by its max_concurrency") {
  using srt::report::judge_collector_tree;
  // InferenceX's single-node fixed-sequence lane: RESULT_DIR=/logs, CONC=4, one client run.
  auto v = judge_collector_tree({{"logs/dsv4_1k1k_fp4_atom_tp8_conc4.json", result(4, 16, 16)},
                                 {"logs/preflight_agg.json", "{\"engine\": {}}"}, {"logs/worker_restarts.json", "[]"}},
                                {4});
  CHECK(v.valid);
  REQUIRE(v.points.size() == 1);
  CHECK(v.points[0].concurrency == 4);
  CHECK(v.points[0].completed == 16);
  // Another point than the expected one, and more than 5 % failed, as any result file.
  CHECK_FALSE(judge_collector_tree({{"logs/x.json", result(8, 16, 16)}}, {4}).valid);
  CHECK_FALSE(judge_collector_tree({{"logs/x.json", result(4, 100, 94)}}, {4}).valid);
  // Only directly in logs/: deeper files are the sa-bench layout's, judged by their names.
  CHECK(judge_collector_tree({{"logs/agentic/conc_4/x.json", result(4, 16, 16)}}, {}).expected.empty());
  // A max_concurrency that is no point is no result.
  for (const std::string mc : {"0", "-4", "4.5", "true", "\"4\"", "1e300"}) {
    std::string text = result(4, 16, 16);
    text.replace(text.find("\"max_concurrency\": 4"), 20, "\"max_concurrency\": " + mc);
    INFO(text);
    CHECK(judge_collector_tree({{"logs/x.json", text}}, {}).expected.empty());
  }
}

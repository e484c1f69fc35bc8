// The GPU count in InferenceX's result file names: read where it is, refused when it is not a
// count, never guessed between two names that disagree.
#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/report.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_file_names {

using srt::report::gpus_from_file_name;
using srt::report::gpus_from_file_names;

namespace {

std::string error_of(const std::string& name) {
  try {
    gpus_from_file_name(name);
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("the launcher's disaggregated name: total, ctx (prefill) and gen (decode)") {
  const auto g = gpus_from_file_name("/ws/dsv4_fp8_srt-4102_conc16_gpus_24_ctx_16_gen_8.json");
  REQUIRE(g);
  CHECK(g->total == 24);
  CHECK(g->prefill == 16);
  CHECK(g->decode == 8);
  CHECK(g->disagg());
  CHECK(g->source == "result file names");
  const auto bench = gpus_from_file_name("results_concurrency_64_gpus_24_ctx_16_gen_8.json");
  REQUIRE(bench);
  CHECK(bench->total == 24);
  CHECK(bench->decode == 8);
}

TEST_CASE("the aggregated name ends with _gpus_<T>.json, and _gpus_<T> may sit anywhere") {
  auto g = gpus_from_file_name("dsr1_srt-7_conc4_gpus_8.json");
  REQUIRE(g);
  CHECK(g->total == 8);
  CHECK_FALSE(g->disagg());
  g = gpus_from_file_name("fixed-seq/mine_gpus_16_tp8-c32.json");
  REQUIRE(g);
  CHECK(g->total == 16);
  g = gpus_from_file_name("mine_gpus_16-c32.json");
  REQUIRE(g);
  CHECK(g->total == 16);
}

TEST_CASE("names without _gpus_<digits> hold no count, and the directory part is not read") {
  CHECK_FALSE(gpus_from_file_name("dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024-c16.json"));
  CHECK_FALSE(gpus_from_file_name("max_gpus_all-c4.json"));
  CHECK_FALSE(gpus_from_file_name("/runs/x_gpus_8/run-c4.json"));
  CHECK_FALSE(gpus_from_file_name("gpus_8-c4.json"));  // no leading underscore: not InferenceX's field
}

TEST_CASE("0, garbage, overflow, two counts and ctx + gen != gpus are refused, naming the file") {
  CHECK_THAT(error_of("r_conc4_gpus_0.json"), Catch::Contains("r_conc4_gpus_0.json") &&
                                                 Catch::Contains("must be 1 or more"));
  CHECK_THAT(error_of("r_conc4_gpus_0_ctx_0_gen_0.json"), Catch::Contains("must be 1 or more"));
  CHECK_THAT(error_of("r_conc4_gpus_24x_ctx_16_gen_8.json"), Catch::Contains("cannot read a GPU count from '_gpus_24x'"));
  CHECK_THAT(error_of("r_conc4_gpus_8.5.json"), Catch::Contains("cannot read a GPU count"));
  CHECK_THAT(error_of("r_conc4_gpus_99999999999.json"), Catch::Contains("99999999999") && Catch::Contains("too large"));
  CHECK_THAT(error_of("r_conc4_gpus_24_ctx_16_gen_9.json"), Catch::Contains("ctx 16 + gen 9 is not gpus 24"));
  CHECK_THAT(error_of("r_conc4_gpus_24_ctx_24_gen_0.json"), Catch::Contains("gen (decode) GPU count 0"));
  CHECK_THAT(error_of("r_gpus_8_conc4_gpus_16.json"), Catch::Contains("two different GPU counts in one name"));
  CHECK(gpus_from_file_name("r_gpus_8_conc4_gpus_8.json")->total == 8);  // said twice, the same
  CHECK_THAT(error_of("r_conc4_gpus_0.json"), Catch::Contains("rename the file"));
}

TEST_CASE("a run's files agree on one count, or the error names both files") {
  CHECK_FALSE(gpus_from_file_names({}));
  CHECK_FALSE(gpus_from_file_names({"a-c4.json", "a-c8.json"}));
  const auto g = gpus_from_file_names({"a-c4.json", "x_conc8_gpus_24_ctx_16_gen_8.json",
                                       "x_conc16_gpus_24_ctx_16_gen_8.json"});
  REQUIRE(g);
  CHECK(g->total == 24);
  CHECK(g->prefill == 16);

  try {
    gpus_from_file_names({"d/x_conc8_gpus_24_ctx_16_gen_8.json", "d/x_conc16_gpus_16_ctx_8_gen_8.json"});
    FAIL("no error for two counts");
  } catch (const srt::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("d/x_conc16_gpus_16_ctx_8_gen_8.json: its name says 16 GPUs, "
                                         "d/x_conc8_gpus_24_ctx_16_gen_8.json says 24"));
  }
  CHECK_THROWS_WITH(gpus_from_file_names({"x_conc8_gpus_24_ctx_16_gen_8.json", "x_conc16_gpus_24_ctx_8_gen_16.json"}),
                    Catch::Contains("another prefill/decode split"));
}

}  // namespace test_file_names

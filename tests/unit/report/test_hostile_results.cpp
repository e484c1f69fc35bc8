// Result files and status.json as another process may leave them: fields
// of the wrong type, numbers no benchmark writes, nesting a million levels deep. Every one is a
// point with a problem naming the field, or an srt::Error naming the file; nothing else escapes,
// nothing crashes, no count wraps into a value that passes the validity gate.
#include <catch2/catch.hpp>

#include <string>

#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/validity.hpp"
#include "srt/report_files.hpp"
#include "temp_dir.hpp"

using namespace report_test;

namespace {

std::string c4_text() { return read_file(kFixtures / "4101" / "fixed-seq" / (kName1p1d + "-c4.json")); }

// The fixture's c4 result with `key` set to `raw` (JSON text, spliced in as written).
std::string with_raw(const std::string& key, const std::string& raw) {
  srt::Json r = srt::Json::parse(c4_text());
  r[key] = "@@RAW@@";
  std::string text = r.dump();
  text.replace(text.find("\"@@RAW@@\""), 9, raw);
  return text;
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST_CASE("a result field of any wrong type is a problem naming the field", "[report][hostile]") {
  for (const std::string key : {"completed", "num_prompts", "total_output_tokens"})
    for (const std::string raw : {"\"40\"", "null", "true", "[40]", "{\"n\": 40}", "-5", "-0.4", "1e300", "1.8e19",
                                  "18446744073709551615", "-9223372036854775808", "40.7"}) {
      INFO(key << " = " << raw);
      srt::PointResult r;
      REQUIRE_NOTHROW(r = srt::judge_point_text(4, "x-c4.json", with_raw(key, raw)));
      if (raw == "40.7") continue;  // a fraction is rounded, as the report always did
      CHECK_THAT(r.problem, Catch::Contains(key));
      CHECK(r.completed >= 0);
      CHECK(r.output_tokens >= 0);
    }
}

TEST_CASE("a result nested a million levels deep is refused, not a crash", "[report][hostile]") {
  for (const std::string key : {"completed", "median_tpot_ms", "extra"}) {
    INFO(key);
    srt::PointResult r;
    REQUIRE_NOTHROW(r = srt::judge_point_text(4, "x-c4.json", with_raw(key, nested(1000000))));
    CHECK_FALSE(r.problem.empty());
  }
  srt::PointResult whole;
  REQUIRE_NOTHROW(whole = srt::judge_point_text(4, "x-c4.json", nested(1000000)));
  CHECK_FALSE(whole.problem.empty());
}

TEST_CASE("status.json: counts and exit codes beyond int are refused, not wrapped", "[report][hostile]") {
  TempDir tmp;
  const fs::path run = tmp.copy_run("4101");
  auto error_of = [&] {
    try {
      srt::report::load_runs(run);
    } catch (const srt::Error& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  // 2^32 as an exit status would be 0 (success) once cut to an int.
  write_file(run / "status.json", R"({"concurrencies": [4, 8], "benchmark_exit_codes": {"8": 4294967296}})");
  CHECK_THAT(error_of(), Catch::Contains("benchmark_exit_codes.8"));
  write_file(run / "status.json", R"({"concurrencies": [4, 4294967304]})");
  CHECK_THAT(error_of(), Catch::Contains("concurrencies"));
  write_file(run / "status.json", "{\"state\": " + nested(1000000) + "}");
  CHECK_NOTHROW(error_of());
  write_file(run / "status.json", "{\"concurrencies\": [" + nested(1000000) + "]}");
  CHECK_THAT(error_of(), Catch::Contains("status.json"));
}

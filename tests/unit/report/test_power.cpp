// GPU power telemetry's artifacts (srt/power.hpp): a scrape read through the exporter's labels,
// samples.csv rows, window files, and the manifest's verdict under srtctl's coverage rules.
#include <catch2/catch.hpp>

#include "srt/power.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_power {

namespace {

srt::GpuExporter amd() {
  return srt::read_gpu_exporter(srt::Json::parse(R"({
    "container_image": "i", "command": "/home/amd/tools/entrypoint.sh", "port": 5000, "kind": "custom",
    "gpu_labels": {"index": "gpu_id", "identity": "serial_number", "instance": ["partition"]},
    "gpu_metrics": {"power": {"metric": "gpu_power_usage", "scope": "s"}, "gpu_util": {"metric": "gpu_gfx_activity"},
                    "temperature": {"metric": "gpu_junction_temperature"}}})"));
}

// ROCm device-metrics-exporter's shape: sorted labels, empty ones written as "".
std::string gpu(int i, double watts, const std::string& extra = "") {
  const std::string labels = "card_model=\"MI355X\",gpu_id=\"" + std::to_string(i) + "\",hostname=\"n1\",pod=\"\",serial_number=\"SN" +
                             std::to_string(i) + "\"" + extra;
  return "gpu_power_usage{" + labels + "} " + std::to_string(watts) + "\n" + "gpu_gfx_activity{" + labels + "} 87\n" +
         "gpu_junction_temperature{" + labels + "} 61\n";
}

// Samples every `step` seconds from `from` to `to` for GPUs 0..n-1 of host h.
std::vector<srt::PowerSample> samples(const std::string& h, int n, double from, double to, double step) {
  std::vector<srt::PowerSample> out;
  for (double t = from; t <= to + 1e-9; t += step)
    for (int g = 0; g < n; ++g) out.push_back({t, h, g, "SN" + std::to_string(g)});
  return out;
}

srt::PowerRun run_of(std::vector<srt::PowerSample> s) {
  srt::PowerRun run;
  run.job_id = "7";
  run.required = true;
  run.exporter = amd();
  run.expected = {{"n1", 0, "agg", {"agg:0"}}, {"n1", 1, "agg", {"agg:0"}}};
  run.samples = std::move(s);
  run.samples_sha256 = "ab";
  run.expected_windows = {4};
  srt::PowerWindow w;
  w.concurrency = 4, w.start = 100, w.end = 130, w.duration = 30, w.file = "windows/r4.json";
  run.windows = {w};
  return run;
}

bool has_reason(const srt::Json& m, const std::string& r) {
  for (const auto& x : m["reason_codes"])
    if (x == r) return true;
  return false;
}

}  // namespace

TEST_CASE("power scrape: rows by the exporter's labels, riders matched to their GPU") {
  const std::string text = "# HELP gpu_power_usage GPU Power usage in Watts\n# TYPE gpu_power_usage gauge\n" + gpu(1, 512.5) +
                           gpu(0, 140) + "gpu_nodes_total{hostname=\"n1\"} 2\n";
  const srt::PowerScrape s = srt::read_power_scrape(text, amd());
  CHECK(s.reasons.empty());
  REQUIRE(s.rows.size() == 2);
  CHECK(s.rows[0].gpu_index == 0);
  CHECK(s.rows[1].uuid == "SN1");
  CHECK(s.rows[1].power_w == 512.5);
  CHECK(s.rows[1].util_pct == 87);
  CHECK(s.rows[1].temperature_c == 61);
  CHECK_FALSE(s.rows[1].sm_active);
  CHECK(srt::power_samples_row(1700000000.25, 3, "node-a", s.rows[1]) == "3,1700000000.25,3,node-a,1,SN1,512.5,87,,61");
}

TEST_CASE("power scrape: what srtctl's parser drops, with its reason") {
  const srt::GpuExporter e = amd();
  CHECK(srt::read_power_scrape("", e).reasons == std::set<std::string>{"power_metric_missing"});
  CHECK(srt::read_power_scrape(gpu(0, 100, ",partition=\"1\""), e).reasons.count("mig_instance_unsupported"));
  CHECK(srt::read_power_scrape("gpu_power_usage{serial_number=\"x\"} 5\n", e).reasons.count("gpu_index_missing"));
  CHECK(srt::read_power_scrape("gpu_power_usage{gpu_id=\"0\",serial_number=\" \"} 5\n", e).reasons.count("gpu_uuid_missing"));
  CHECK(srt::read_power_scrape("gpu_power_usage{gpu_id=\"0\",serial_number=\"a\"} NaN\n", e).reasons.count("invalid_power_value"));
  CHECK(srt::read_power_scrape("gpu_power_usage{gpu_id=\"0\",serial_number=\"a\"} -1\n", e).reasons.count("invalid_power_value"));
  const srt::PowerScrape dup = srt::read_power_scrape(gpu(0, 100) + gpu(0, 200) + gpu(1, 90), e);
  CHECK(dup.reasons.count("duplicate_power_metric"));
  REQUIRE(dup.rows.size() == 1);  // both readings of GPU 0 dropped, GPU 1 kept
  CHECK(dup.rows[0].gpu_index == 1);
  // A label value may hold an escaped quote or a brace; a broken line is skipped, not fatal.
  const srt::PowerScrape odd = srt::read_power_scrape(
      "gpu_power_usage{card_model=\"a\\\"}b\",gpu_id=\"2\",serial_number=\"z\"} 7\ngpu_power_usage{gpu_id=\"3\" 9\n", e);
  REQUIRE(odd.rows.size() == 1);
  CHECK(odd.rows[0].gpu_index == 2);
}

TEST_CASE("power manifest: every GPU bracketed at a 1 s cadence is publishable") {
  const srt::Json m = srt::power_manifest(run_of(samples("n1", 2, 95, 135, 1)));
  CHECK(m["status"] == "complete");
  CHECK(m["publication_valid"] == true);
  CHECK(m["reason_codes"].empty());
  CHECK(m["window_validations"][0]["power_coverage_valid"] == true);
  CHECK(m["window_validations"][0]["per_device_max_sample_gap_seconds"]["n1/0"] == 1.0);
  CHECK_FALSE(srt::power_fails_job(m));
  CHECK(m["expected_devices"].size() == 2);
}

TEST_CASE("power manifest: the coverage rules, each with srtctl's reason") {
  // Starts after the window opened: no sample brackets its start.
  CHECK(has_reason(srt::power_manifest(run_of(samples("n1", 2, 101, 135, 1))), "measurement_window_not_bracketed"));
  // A 4 s hole inside the window.
  auto gap = samples("n1", 2, 95, 110, 1);
  for (auto& s : samples("n1", 2, 114, 135, 1)) gap.push_back(s);
  const srt::Json g = srt::power_manifest(run_of(gap));
  CHECK(has_reason(g, "sample_gap_exceeded"));
  CHECK(g["publication_valid"] == false);
  CHECK(srt::power_fails_job(g));
  // Every other second at a 1 s cadence: no gap over 3 s, but half the intervals missing.
  CHECK(has_reason(srt::power_manifest(run_of(samples("n1", 2, 94, 136, 2))), "sample_loss_exceeded"));
  // GPU 1 never reported; GPU 0 changed identity.
  auto missing = samples("n1", 1, 95, 135, 1);
  CHECK(has_reason(srt::power_manifest(run_of(missing)), "expected_device_missing"));
  auto changed = samples("n1", 2, 95, 135, 1);
  changed[0].uuid = "other";
  CHECK(has_reason(srt::power_manifest(run_of(changed)), "gpu_uuid_changed"));
  // A point with no window (its step never ran), and an exporter that died.
  srt::PowerRun no_window = run_of(samples("n1", 2, 95, 135, 1));
  no_window.expected_windows = {4, 8};
  CHECK(has_reason(srt::power_manifest(no_window), "measurement_window_missing"));
  srt::PowerRun died = run_of(samples("n1", 2, 95, 135, 1));
  died.runtime_reasons = {"exporter_exited"};
  const srt::Json d = srt::power_manifest(died);
  CHECK(d["status"] == "incomplete");
  CHECK(d["publication_valid"] == false);
  // Not required: recorded, never the job's failure.
  died.required = false;
  CHECK_FALSE(srt::power_fails_job(srt::power_manifest(died)));
}

TEST_CASE("power manifest: a GPU no worker holds is recorded, not judged") {
  auto s = samples("n1", 4, 95, 135, 1);  // the exporter reads the whole node; the worker holds 0 and 1
  const srt::Json m = srt::power_manifest(run_of(s));
  CHECK(m["publication_valid"] == true);
  CHECK(m["unexpected_devices"].size() == 2);
  CHECK(m["observed_devices"].size() == 4);
}

TEST_CASE("power window file: srtctl's keys, null end while interrupted") {
  srt::PowerWindow w;
  w.concurrency = 16, w.start = 10, w.end = 20, w.duration = 9.99, w.result_path = "r16.json";
  const srt::Json j = srt::power_window_json(w);
  for (const char* key : {"schema_version", "benchmark_type", "result_path", "concurrency", "benchmark_start_time_unix",
                          "benchmark_end_time_unix", "duration", "clock_source", "status", "reason"})
    CHECK(j.contains(key));
  CHECK(j.size() == 10);
  CHECK(j["clock_source"] == "head_node_unix_clock");
  w.status = "interrupted";
  CHECK(srt::power_window_json(w)["benchmark_end_time_unix"].is_null());
}

}  // namespace test_power

// GPU power telemetry's artifacts, as srtctl writes and judges them (NVIDIA/srt-slurm
// docs/power-telemetry.md; src/srtctl/core/power/contract.py, samples.py, windows.py,
// manifest.py): the rows read from one exporter scrape, samples.csv's lines, a window file, and
// the manifest with its verdict. Pure: the launcher (jobstep/launch/power_collector.cpp) scrapes,
// times and writes.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "srt/document.hpp"
#include "srt/telemetry.hpp"

namespace srt {

// One GPU's reading in one scrape. Units fixed by the artifact: W, percent, 0-1, Celsius.
struct PowerRow {
  int gpu_index = 0;
  std::string uuid;
  double power_w = 0;
  std::optional<double> util_pct, sm_active, temperature_c;
};

// The rows of one /metrics answer, read through the exporter's labels and metrics, and the
// reason codes of what was dropped (srtctl's names: mig_instance_unsupported, gpu_index_missing,
// gpu_uuid_missing, invalid_power_value, duplicate_power_metric, power_metric_missing).
// Network input: nothing in it is trusted.
struct PowerScrape {
  std::vector<PowerRow> rows;
  std::set<std::string> reasons;
};
PowerScrape read_power_scrape(std::string_view exposition, const GpuExporter& exporter);

// samples.csv, schema version 3: its header line and one row (no newline).
inline constexpr const char* kPowerSamplesHeader =
    "schema_version,timestamp_unix,scrape_seq,hostname,gpu_index,gpu_uuid,power_w,gpu_util_pct,sm_active,temperature_c";
std::string power_samples_row(double timestamp_unix, long long scrape_seq, const std::string& hostname, const PowerRow& r);

// What the verdict reads of a sample: when, which GPU of which node, which identity.
struct PowerSample {
  double t = 0;
  std::string host;
  int gpu_index = 0;
  std::string uuid;
};

// A GPU the Plan gives a worker, and the processes on it.
struct PowerDevice {
  std::string host;
  int gpu_index = 0;
  std::string role;                    // prefill | decode | agg
  std::vector<std::string> processes;  // "prefill:0"
};

// One benchmark point's measurement window, on the launcher's clock.
struct PowerWindow {
  int concurrency = 0;
  double start = 0, end = 0;       // unix seconds
  double duration = 0;             // monotonic seconds
  std::string status = "completed";  // completed | failed | interrupted
  std::string reason;
  std::string result_path;         // relative to the log directory ("" when the point wrote none)
  std::string file;                // windows/<stem>.json, relative to the power directory
};
// A window file's JSON (srtctl's measurement_window schema 1).
Json power_window_json(const PowerWindow& w);

// Everything the manifest records, and the inputs of its verdict.
struct PowerRun {
  std::string job_id, run_name;
  bool required = false;
  double sample_interval_seconds = 1, request_timeout_seconds = 2;
  GpuExporter exporter;
  std::vector<std::string> exporter_command;  // the argv each node ran
  double started_at = 0;
  std::optional<double> stopped_at;
  std::vector<PowerDevice> expected;
  std::vector<PowerSample> samples;
  long long scrape_count = 0;
  std::string samples_sha256;          // "" when samples.csv could not be read back
  std::vector<int> expected_windows;   // the concurrencies the benchmark runs
  std::vector<PowerWindow> windows;
  std::set<std::string> runtime_reasons;  // what the collector saw (exporter_exited, ...)
};

// Gaps and coverage: srtctl's MAX_SAMPLE_GAP_SECONDS and its loss fraction.
inline constexpr double kPowerMaxGapSeconds = 3.0;
inline constexpr double kPowerMaxLossFraction = 0.05;

// manifest.json: the run, per-window validations, the device sets, and the verdict ("status":
// complete | incomplete | failed; "publication_valid"; "reason_codes").
Json power_manifest(const PowerRun& run);

// Whether the manifest's verdict fails the job: required and not publishable.
bool power_fails_job(const Json& manifest);

}  // namespace srt

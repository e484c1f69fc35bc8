// srt/power.hpp: a scrape read as srtctl's parser reads it (src/srtctl/core/power/parser.py:
// the profile's index and identity labels, instance-labelled samples dropped, a GPU index seen
// twice dropped whole), samples.csv's rows (samples.py, schema 3), window files
// (benchmarks/scripts/sa-bench/measurement_window.py's keys) and the manifest's verdict
// (manifest.py, windows.py: bracketing samples, the 3 s gap and the 5 % loss rules).
#include "srt/power.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "srt/prometheus.hpp"

namespace srt {

namespace {

std::optional<int> gpu_index_of(const std::string& text) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(text);
}

std::string label(const PrometheusSample& s, const std::string& name) {
  const auto it = s.labels.find(name);
  return it == s.labels.end() ? std::string() : it->second;
}

bool partition_sample(const PrometheusSample& s, const GpuExporter& e) {
  return std::any_of(e.instance_labels.begin(), e.instance_labels.end(),
                     [&s](const std::string& l) { return !label(s, l).empty(); });
}

// The first sample of a rider metric for each GPU, keyed by its index and its identity label as
// written ("" when the exporter has none), from one pass over the scrape: a lookup per GPU, not a
// parse of the whole page per GPU.
using RiderKey = std::pair<int, std::string>;
std::map<RiderKey, double> riders(std::string_view text, const std::string& metric, const GpuExporter& e) {
  std::map<RiderKey, double> out;
  if (metric.empty()) return out;
  for (const auto& s : prometheus_samples(text, metric)) {
    if (partition_sample(s, e)) continue;
    const std::optional<int> index = gpu_index_of(label(s, e.index_label));
    if (!index) continue;
    out.emplace(RiderKey{*index, e.identity_label.empty() ? std::string() : label(s, e.identity_label)}, s.value);
  }
  return out;
}

// The GPU's reading of a rider metric, kept only when it is in range.
std::optional<double> rider(const std::map<RiderKey, double>& values, const GpuExporter& e, const PowerRow& row, double lo,
                            double hi) {
  const auto it = values.find({row.gpu_index, e.identity_label.empty() ? std::string() : row.uuid});
  if (it == values.end() || !std::isfinite(it->second) || it->second < lo || it->second > hi) return std::nullopt;
  return it->second;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

std::string device_key(const std::string& host, int gpu_index) { return host + "/" + std::to_string(gpu_index); }

}  // namespace

PowerScrape read_power_scrape(std::string_view exposition, const GpuExporter& e) {
  PowerScrape out;
  std::map<int, int> seen;
  std::vector<PowerRow> rows;
  for (const auto& s : prometheus_samples(exposition, e.power_metric)) {
    if (partition_sample(s, e)) {
      out.reasons.insert("mig_instance_unsupported");
      continue;
    }
    const std::optional<int> index = gpu_index_of(label(s, e.index_label));
    if (!index) {
      out.reasons.insert("gpu_index_missing");
      continue;
    }
    std::string uuid = label(s, e.identity_label);
    uuid.erase(0, uuid.find_first_not_of(" \t"));
    uuid.erase(uuid.find_last_not_of(" \t") + 1);
    if (uuid.empty()) {
      out.reasons.insert("gpu_uuid_missing");
      continue;
    }
    if (!std::isfinite(s.value) || s.value < 0) {
      out.reasons.insert("invalid_power_value");
      continue;
    }
    ++seen[*index];
    rows.push_back({*index, uuid, s.value, {}, {}, {}});
  }
  if (rows.empty() && out.reasons.empty()) out.reasons.insert("power_metric_missing");
  const auto util = riders(exposition, e.util_metric, e);
  const auto sm_active = riders(exposition, e.sm_active_metric, e);
  const auto temperature = riders(exposition, e.temperature_metric, e);
  for (auto& r : rows) {
    if (seen[r.gpu_index] > 1) {  // which of the two is the GPU's? neither
      out.reasons.insert("duplicate_power_metric");
      continue;
    }
    r.util_pct = rider(util, e, r, 0, 100);
    r.sm_active = rider(sm_active, e, r, 0, 1);
    r.temperature_c = rider(temperature, e, r, -273.15, 1e6);
    out.rows.push_back(std::move(r));
  }
  std::sort(out.rows.begin(), out.rows.end(), [](const PowerRow& a, const PowerRow& b) { return a.gpu_index < b.gpu_index; });
  return out;
}

std::string power_samples_row(double timestamp_unix, long long scrape_seq, const std::string& hostname, const PowerRow& r) {
  return "3," + number(timestamp_unix) + "," + std::to_string(scrape_seq) + "," + hostname + "," +
         std::to_string(r.gpu_index) + "," + r.uuid + "," + number(r.power_w) + "," + optional_number(r.util_pct) + "," +
         optional_number(r.sm_active) + "," + optional_number(r.temperature_c);
}

Json power_window_json(const PowerWindow& w) {
  const bool ended = w.status != "interrupted";
  return Json{{"schema_version", 1},
              {"benchmark_type", "custom"},
              {"result_path", w.result_path.empty() ? Json() : Json(w.result_path)},
              {"concurrency", w.concurrency},
              {"benchmark_start_time_unix", w.start},
              {"benchmark_end_time_unix", ended ? Json(w.end) : Json()},
              {"duration", ended ? Json(w.duration) : Json()},
              {"clock_source", "head_node_unix_clock"},
              {"status", w.status},
              {"reason", w.reason.empty() ? Json() : Json(w.reason)}};
}

namespace {

// One window against every expected GPU's samples (sorted by time): srtctl's windows.py rules.
Json judge_window(const PowerWindow* w, int concurrency, const std::vector<PowerDevice>& expected,
                  const std::map<std::string, std::vector<double>>& times, double interval, std::set<std::string>& all) {
  Json v{{"benchmark_type", "custom"}, {"concurrency", concurrency}};
  std::set<std::string> reasons;
  Json gaps = Json::object();
  if (!w) {
    reasons.insert("measurement_window_missing");
  } else if (w->status != "completed") {
    reasons.insert("measurement_window_incomplete");
  } else {
    for (const auto& d : expected) {
      const auto it = times.find(device_key(d.host, d.gpu_index));
      const std::vector<double> none;
      const std::vector<double>& t = it == times.end() ? none : it->second;
      // The last sample at or before the start, the first at or after the end, all between.
      const auto first = std::upper_bound(t.begin(), t.end(), w->start);
      const auto last = std::lower_bound(t.begin(), t.end(), w->end);
      if (first == t.begin() || last == t.end()) {
        reasons.insert("measurement_window_not_bracketed");
        continue;
      }
      double max_gap = 0;
      for (auto i = first - 1; i != last; ++i) max_gap = std::max(max_gap, *(i + 1) - *i);
      gaps[d.host + "/" + std::to_string(d.gpu_index)] = max_gap;
      if (max_gap > kPowerMaxGapSeconds) reasons.insert("sample_gap_exceeded");
      const double span = *last - *(first - 1);
      const long long expected_intervals = interval > 0 ? static_cast<long long>(std::floor(span / interval)) : 0;
      const long long observed_intervals = static_cast<long long>(last - (first - 1));
      if (expected_intervals > 0 &&
          double(expected_intervals - observed_intervals) > kPowerMaxLossFraction * double(expected_intervals))
        reasons.insert("sample_loss_exceeded");
    }
  }
  v["window_file"] = w ? Json(w->file) : Json();
  v["power_coverage_valid"] = reasons.empty();
  v["reason_codes"] = std::vector<std::string>(reasons.begin(), reasons.end());
  v["per_device_max_sample_gap_seconds"] = gaps;
  all.insert(reasons.begin(), reasons.end());
  return v;
}

}  // namespace

Json power_manifest(const PowerRun& run) {
  std::set<std::string> reasons = run.runtime_reasons;
  // Samples by device, times sorted and distinct (a row written twice counts once).
  std::map<std::string, std::vector<double>> times;
  std::map<std::string, std::set<std::string>> uuids;
  std::map<std::string, std::pair<std::string, int>> where;
  for (const auto& s : run.samples) {
    const std::string key = device_key(s.host, s.gpu_index);
    times[key].push_back(s.t);
    uuids[key].insert(s.uuid);
    where[key] = {s.host, s.gpu_index};
  }
  for (auto& [key, t] : times) {
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
  }
  std::set<std::string> expected_keys;
  Json expected = Json::array();
  for (const auto& d : run.expected) {
    const std::string key = device_key(d.host, d.gpu_index);
    expected_keys.insert(key);
    Json assignments = Json::array();
    for (const auto& p : d.processes) assignments.push_back({{"worker_role", d.role}, {"worker_process", p}});
    expected.push_back({{"hostname", d.host}, {"gpu_index", d.gpu_index}, {"assignments", assignments}});
    if (!times.count(key)) reasons.insert("expected_device_missing");
    else if (uuids[key].size() > 1) reasons.insert("gpu_uuid_changed");
  }
  Json observed = Json::array(), unexpected = Json::array();
  for (const auto& [key, t] : times) {
    const auto& [host, index] = where[key];
    const Json o{{"hostname", host},
                 {"gpu_index", index},
                 {"gpu_uuids", std::vector<std::string>(uuids[key].begin(), uuids[key].end())},
                 {"first_sample_time_unix", t.front()},
                 {"last_sample_time_unix", t.back()}};
    observed.push_back(o);
    // The exporter reads every GPU of its node; one no worker of the job holds is recorded, not
    // judged (a worker on half a node leaves the other half to the node's other jobs).
    if (!expected_keys.count(key)) unexpected.push_back({{"hostname", host}, {"gpu_index", index}});
  }
  Json validations = Json::array();
  std::set<std::string> window_reasons;
  Json expected_windows = Json::array();
  for (int c : run.expected_windows) {
    expected_windows.push_back({{"benchmark_type", "custom"}, {"concurrency", c}});
    const PowerWindow* w = nullptr;
    for (const auto& x : run.windows)
      if (x.concurrency == c) w = &x;  // the last run of a point is the one its result came from
    validations.push_back(judge_window(w, c, run.expected, times, run.sample_interval_seconds, window_reasons));
  }
  reasons.insert(window_reasons.begin(), window_reasons.end());
  if (run.samples_sha256.empty()) reasons.insert("samples_digest_unavailable");

  static const std::set<std::string> fatal = {"exporter_exited", "collector_exception", "collector_interrupted",
                                              "collector_join_timeout"};
  static const std::set<std::string> startup = {"exporter_startup_timeout", "exporter_launch_failed",
                                                "endpoint_resolution_failed"};
  const auto any_of = [&reasons](const std::set<std::string>& kinds) {
    return std::any_of(kinds.begin(), kinds.end(), [&reasons](const std::string& k) { return reasons.count(k) > 0; });
  };
  const std::string status = any_of(fatal) ? "incomplete" : run.required && any_of(startup) ? "failed" : "complete";
  const bool devices_valid = !reasons.count("expected_device_missing") && !reasons.count("gpu_uuid_changed");
  const bool publishable = status == "complete" && devices_valid && !run.expected_windows.empty() &&
                           window_reasons.empty() && !run.samples_sha256.empty();
  const GpuExporter& e = run.exporter;
  Json utilization = Json::array();
  if (!e.util_metric.empty()) utilization.push_back({{"column", "gpu_util_pct"}, {"source_metric", e.util_metric}, {"unit", "percent"}});
  if (!e.sm_active_metric.empty())
    utilization.push_back({{"column", "sm_active"}, {"source_metric", e.sm_active_metric}, {"unit", "fraction"}});
  const auto rows = static_cast<long long>(run.samples.size());
  return Json{{"schema_version", 1},
              {"producer", "srt-spank.gpu-power"},
              {"source_metric", e.power_metric},
              {"unit", "W"},
              {"power_scope", e.power_scope},
              {"temperature_metric", e.temperature_metric.empty() ? Json() : Json(e.temperature_metric)},
              {"samples_schema_version", 3},
              {"utilization_metrics", utilization},
              {"timestamp_source", "head_node_unix_clock"},
              {"job_id", run.job_id},
              {"run_name", run.run_name},
              {"sample_interval_seconds", run.sample_interval_seconds},
              {"request_timeout_seconds", run.request_timeout_seconds},
              {"required", run.required},
              {"started_at_unix", run.started_at},
              {"stopped_at_unix", run.stopped_at ? Json(*run.stopped_at) : Json()},
              {"status", status},
              {"publication_valid", publishable},
              {"dcgm_exporter",
               {{"container_image_resolved", e.binary.empty() ? Json(e.container_image) : Json()},
                {"binary", e.binary.empty() ? Json() : Json(e.binary)},
                {"port", e.port},
                {"command", run.exporter_command},
                {"kind", e.kind}}},
              {"expected_devices", expected},
              {"observed_devices", observed},
              {"unexpected_devices", unexpected},
              {"expected_windows", expected_windows},
              {"scrape_count", run.scrape_count},
              {"sample_row_count", rows},
              {"samples_sha256", run.samples_sha256.empty() ? Json() : Json(run.samples_sha256)},
              {"window_validations", validations},
              {"reason_codes", std::vector<std::string>(reasons.begin(), reasons.end())}};
}

bool power_fails_job(const Json& manifest) {
  const auto required = manifest.find("required");
  const auto valid = manifest.find("publication_valid");
  return required != manifest.end() && required->is_boolean() && required->get<bool>() &&
         !(valid != manifest.end() && valid->is_boolean() && valid->get<bool>());
}

}  // namespace srt

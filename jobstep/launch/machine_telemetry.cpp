// GPU power telemetry (srt/power.hpp) as srtctl runs it (NVIDIA/srt-slurm
// src/srtctl/cli/mixins/telemetry_stage.py and core/power/session.py): after the workers and the
// frontend, one exporter step per worker node and the collector; the benchmark waits until one
// scrape covers every GPU the workers hold (startup_timeout_seconds). Each benchmark point's
// window is stamped around its step; at the end the final scrape, then the manifest and its
// verdict, before the steps stop.
#include <algorithm>

#include "machine_impl.hpp"
#include "power_collector.hpp"
#include "srt/digest.hpp"
#include "srt/join.hpp"
#include "srt/result_files.hpp"

namespace srt::launch {

void Launch::start_telemetry() {
  if (!job_.plan.telemetry || !job_.logs) return;
  const TelemetryPlan& t = *job_.plan.telemetry;
  enter("telemetry");
  std::optional<helper::SafeDir> dir = job_.logs->sub(t.storage_subdir, true);
  std::optional<helper::SafeDir> windows = dir ? dir->sub("windows", true) : std::nullopt;
  if (!dir || !windows) throw failed(Cause::internal, "telemetry: cannot make " + job_.log_dir + "/" + t.storage_subdir);
  power_dir_ = std::make_shared<const helper::SafeDir>(std::move(*dir));
  windows_dir_ = std::make_shared<const helper::SafeDir>(std::move(*windows));

  std::vector<PowerEndpoint> endpoints;
  for (const auto& p : job_.plan.processes)
    if (p.role == Role::gpu_exporter) {
      start(p);
      endpoints.push_back({p.node, address(p), p.ports.metrics.front()});
    }
  std::set<std::pair<std::string, int>> expected;
  for (const auto& p : job_.plan.processes)
    if (p.is_worker())
      for (int g : p.gpus) expected.insert({p.node, g});
  power_ = std::make_unique<PowerCollector>(t, endpoints, *power_dir_);
  power_started_unix_ = unix_now();
  power_->start();
  const std::string image = t.exporter.binary.empty() ? t.exporter.container_image : t.exporter.binary + " (host)";
  console_.line("telemetry: GPU exporter " + image + " on " + std::to_string(endpoints.size()) + " node(s), port " +
                std::to_string(t.exporter.port) + " (" + (t.from == "profile" ? "the profile's default_gpu_exporter" : "the recipe's") +
                "), scraped every " + std::to_string(t.collect_interval_ms) + " ms into " + power_dir_->path());
  if (job_.plan.benchmark_points.empty())
    console_.line("telemetry: the benchmark runs its whole sweep in one step, so no point gets a window of its own (a "
                  "command that reads SRT_BENCHMARK_CONCURRENCIES runs a step per point): the measurement will not be "
                  "publishable");
  std::string missing;
  const bool ready = sys::poll_until(t.startup_timeout_seconds, kPoll, [&] {
    check();
    return power_->covered(expected, missing);
  });
  if (ready) {
    power_->ready();
    console_.line("telemetry: every worker GPU reported (" + std::to_string(expected.size()) + ")");
    return;
  }
  power_startup_failed_ = true;
  std::string why = "telemetry: the GPU exporters did not report every worker GPU within " +
                    std::to_string(int(t.startup_timeout_seconds)) + " s (missing " + missing + "; logs " +
                    job_.log_dir + "/*_gpu_exporter.out)";
  for (const auto& p : job_.plan.processes)
    if (p.role == Role::gpu_exporter) console_.tail(*job_.logs, p.log_file, 10);
  if (t.required) throw failed(Cause::telemetry, why + "; telemetry.required: no benchmark was run");
  console_.line(why + "; the benchmark runs and the measurement is recorded as not publishable");
}

void Launch::window_begin(int concurrency) {
  if (!power_) return;
  PowerWindow w;
  w.concurrency = concurrency;
  w.start = unix_now();
  w.status = "interrupted";  // until it ends
  windows_.push_back(w);
  window_mono_ = console_.seconds();
}

void Launch::window_end(int concurrency, const std::string& state, const std::string& reason) {
  if (!power_ || windows_.empty() || windows_.back().concurrency != concurrency) return;
  PowerWindow& w = windows_.back();
  w.end = unix_now();
  w.duration = console_.seconds() - window_mono_;
  w.status = state == "ok" ? "completed" : "failed";
  w.reason = state == "ok" ? "" : reason;
  const auto results = find_result_files(results_path());
  std::string stem = "concurrency_" + std::to_string(concurrency);
  if (const auto it = results.find(concurrency); it != results.end()) {
    const std::filesystem::path p(it->second);
    stem = p.stem().string();
    w.result_path = p.filename().string();
  }
  w.file = "windows/" + stem + ".json";
  windows_dir_->write_file(stem + ".json", power_window_json(w).dump(2) + "\n");
}

// Before the steps stop (srtctl finalizes before its process registry's cleanup): the final
// scrape, then the manifest. A required measurement that is not publishable fails a job that
// otherwise completed.
void Launch::finish_telemetry() {
  if (!power_) return;
  const TelemetryPlan& t = *job_.plan.telemetry;
  power_->stop();
  PowerRun run;
  run.job_id = std::to_string(job_.plan.job_id);
  run.run_name = job_.recipe.name;
  run.required = t.required;
  run.sample_interval_seconds = t.collect_interval_ms / 1000.0;
  run.request_timeout_seconds = t.request_timeout_seconds;
  run.exporter = t.exporter;
  for (const auto& p : job_.plan.processes)
    if (p.role == Role::gpu_exporter) {
      run.exporter_command = p.argv;
      break;
    }
  run.started_at = power_started_unix_;
  run.stopped_at = unix_now();
  for (const auto& p : job_.plan.processes)
    if (p.is_worker())
      for (int g : p.gpus) {
        auto same = std::find_if(run.expected.begin(), run.expected.end(),
                                 [&](const PowerDevice& d) { return d.host == p.node && d.gpu_index == g; });
        if (same == run.expected.end()) run.expected.push_back({p.node, g, to_string(p.role), {p.name}});
        else same->processes.push_back(p.name);
      }
  run.samples = power_->samples();
  run.scrape_count = power_->scrapes();
  if (const auto bytes = power_dir_->read_file("samples.csv")) run.samples_sha256 = sha256_hex(*bytes);
  run.expected_windows = job_.points.empty() ? job_.recipe.benchmark.concurrencies : job_.points;
  run.windows = windows_;
  run.runtime_reasons = power_->reasons();
  if (power_startup_failed_) run.runtime_reasons.insert("exporter_startup_timeout");
  if (outcome_.state == "cancelled" || outcome_.state == "timeout") run.runtime_reasons.insert("collector_interrupted");
  const Json manifest = power_manifest(run);
  power_dir_->write_file("manifest.json", manifest.dump(2) + "\n");
  std::vector<std::string> reasons;
  for (const auto& r : manifest["reason_codes"]) reasons.push_back(r.get<std::string>());
  const bool publishable = manifest["publication_valid"].get<bool>();
  console_.line("telemetry: " + std::to_string(run.samples.size()) + " samples in " + std::to_string(run.scrape_count) +
                " scrapes, " + std::to_string(run.windows.size()) + " window(s); " +
                (publishable ? "publishable" : "not publishable (" + join(reasons, ", ") + ")") + "; " +
                power_dir_->path() + "/manifest.json");
  if (power_fails_job(manifest) && outcome_.state == "completed")
    outcome_ = failed(Cause::telemetry, "telemetry.required: the power measurement is not publishable (" +
                                            join(reasons, ", ") + "; " + power_dir_->path() + "/manifest.json)")
                   .outcome;
}

}  // namespace srt::launch

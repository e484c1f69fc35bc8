// The job's GPU power telemetry in the Plan (srt/telemetry.hpp): one exporter per worker node,
// as srtctl runs it ("one GPU power exporter task runs on each allocated worker node",
// NVIDIA/srt-slurm v2.18 docs/power-telemetry.md), on the port its config names, claimed on
// that node so that no planned port of the job meets it.
#include <algorithm>

#include "processes.hpp"
#include "srt/data_network.hpp"
#include "srt/error.hpp"

namespace srt::plan_detail {

std::optional<TelemetryPlan> telemetry_plan(const Recipe& r, const Profile& p) {
  if (!r.telemetry.enabled) return std::nullopt;
  const std::optional<GpuExporter> e = effective_gpu_exporter(r.telemetry, p.default_gpu_exporter);
  if (!e) fail("telemetry.enabled: " + missing_gpu_exporter(r.telemetry, p.default_gpu_exporter), kMissingGpuExporterFix);
  TelemetryPlan t;
  t.required = r.telemetry.required;
  t.collect_interval_ms = r.telemetry.collect_interval_ms;
  t.storage_subdir = r.telemetry.storage_subdir;
  t.startup_timeout_seconds = r.telemetry.startup_timeout_seconds;
  t.request_timeout_seconds = r.telemetry.request_timeout_seconds;
  t.exporter = *e;
  if (t.exporter.binary.empty()) t.exporter.container_image = image_of(r, p, Role::gpu_exporter);
  t.from = r.telemetry.exporter ? "recipe" : "profile";
  return t;
}

Process make_gpu_exporter(const TelemetryPlan& t, const PlanNode& node, NodePorts& ports, const Profile& profile) {
  ports.claim(t.exporter.port, "the GPU exporter's port (telemetry)");
  Process e;
  e.name = "gpu-exporter:" + std::to_string(node.index);
  e.role = Role::gpu_exporter;
  e.index = node.index;
  e.node_index = node.index;
  e.node = node.name;
  e.step_name = "gpu_exporter_" + std::to_string(node.index);
  e.ports.metrics = {t.exporter.port};
  e.argv = gpu_exporter_argv(t.exporter, listen_host(profile, node.address));
  e.readiness = {"http", t.exporter.port, "/metrics"};
  e.log_file = node.name + "_gpu_exporter.out";
  // A dead exporter costs the measurement, not the benchmark: the manifest says so, and only
  // `required` turns that into the job's failure.
  e.critical = false;
  return e;
}

}  // namespace srt::plan_detail

// GPU power telemetry as srtctl defines it (NVIDIA/srt-slurm v2.18 docs/power-telemetry.md and
// docs/schema/recipe.schema.json TelemetryConfig, TelemetryExporterConfig; cluster.schema.json
// default_gpu_exporter): one GPU exporter per worker node for the job, scraped from the head
// while the benchmark runs, its samples and each concurrency's window written under the job's
// logs. This file: the blocks as read and the one exporter a job runs.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "srt/document.hpp"

namespace srt {

// TelemetryExporterConfig: the exporter, how to start it and how to read its /metrics.
struct GpuExporter {
  std::string container_image;  // an image or a profile `containers` alias; unused with `binary`
  int port = 0;                 // /metrics on every worker node
  std::string command;          // argv as one string, "{port}" replaced; "" = the kind's own
  std::string binary;           // a host executable, run with no container
  std::string kind = "dcgm";    // dcgm | custom
  // gpu_labels: the node-local GPU index, a per-GPU identity, and labels marking a partition
  // (MIG instance, compute partition) whose samples are dropped.
  std::string index_label = "gpu";
  std::string identity_label = "UUID";
  std::vector<std::string> instance_labels = {"GPU_I_ID", "GPU_I_PROFILE"};
  // gpu_metrics: power is required; the others fill optional columns.
  std::string power_metric = "DCGM_FI_DEV_POWER_USAGE";
  std::string power_scope = "gpu_device_board_as_reported_by_dcgm";
  std::string util_metric = "DCGM_FI_DEV_GPU_UTIL";
  std::string sm_active_metric = "DCGM_FI_PROF_SM_ACTIVE";
  std::string temperature_metric = "DCGM_FI_DEV_GPU_TEMP";
};

// TelemetryConfig (the recipe's `telemetry:`). Only the GPU leg runs here; the CPU legs
// (cpu_power_exporter, cpu_power) are accepted and said not to run.
struct Telemetry {
  bool given = false;
  bool enabled = false;
  bool required = false;             // an unpublishable measurement fails the job
  int collect_interval_ms = 1000;    // at most 3000: the validity rule's largest gap
  std::string storage_subdir = "power";
  double startup_timeout_seconds = 30;
  double request_timeout_seconds = 2;
  std::optional<GpuExporter> exporter;  // dcgm_exporter
  bool cpu_legs = false;             // cpu_power_exporter or cpu_power written
};

// The cluster's default_gpu_exporter: absent (srtctl's DCGM default is then unknown here, so a
// recipe must name one), null (the default disabled) or a block.
struct DefaultGpuExporter {
  bool given = false;
  std::optional<GpuExporter> exporter;  // nullopt with given: written as null
};

// The blocks as the schema checked them. A dcgm exporter's labels and metrics are the DCGM
// defaults unless written; a custom one has only what it writes.
Telemetry read_telemetry(const Json* block);
DefaultGpuExporter read_default_gpu_exporter(const Json* root);
GpuExporter read_gpu_exporter(const Json& block);

// The exporter a job with telemetry enabled runs: the recipe's dcgm_exporter, else the
// cluster's default_gpu_exporter (srtctl's resolve_config_with_defaults); nullopt when neither.
std::optional<GpuExporter> effective_gpu_exporter(const Telemetry& t, const DefaultGpuExporter& cluster);
// Why an enabled telemetry block has no exporter to run ("" when it has one or is off), and what
// to do about it: `validate` and the Plan say the same.
std::string missing_gpu_exporter(const Telemetry& t, const DefaultGpuExporter& cluster);
inline constexpr const char* kMissingGpuExporterFix =
    "add telemetry.dcgm_exporter (container_image, port, command; kind: custom with gpu_labels and gpu_metrics for "
    "ROCm's device-metrics-exporter) or ask the cluster's admin for a default_gpu_exporter";

// The exporter's argv: `command` split at spaces and tabs, with each "{port}" replaced by the
// port; a dcgm exporter without a command runs srtctl's dcgm-exporter command on the port, bound
// to `listen_host` (the node's data-network address, srt/data_network.hpp listen_host; "0.0.0.0"
// or "" for every interface), not every interface as srtctl's ":{port}" binds it.
// `binary`, when set, is argv[0] and `command` its arguments. Throws srt::Error when the command
// holds what a shell would read (gpu_exporter_command_problem): srtctl shlex-splits it, and
// srt-spank refuses rather than guess.
std::vector<std::string> gpu_exporter_argv(const GpuExporter& e, const std::string& listen_host);

// Why `command` cannot run as plain words ("" when it can): it holds a character a shell would
// read (quotes, $, ;, ...), which srt-spank does not interpret.
std::string gpu_exporter_command_problem(const std::string& command);

// What is wrong with an exporter block as written (key under the block, message): kind custom
// without command, gpu_labels or gpu_metrics; nothing to run; a command that needs a shell.
std::vector<std::pair<std::string, std::string>> gpu_exporter_problems(const GpuExporter& e, const Json& block);

// srtctl's largest accepted sample gap (collect_interval_ms may not exceed it).
inline constexpr int kPowerMaxGapMs = 3000;

}  // namespace srt

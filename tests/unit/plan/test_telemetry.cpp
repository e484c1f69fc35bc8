// GPU power telemetry in the Plan: srtctl's telemetry block and the cluster's default_gpu_exporter
// read as its schema says, one exporter per worker node on its claimed port, and the refusals.
#include <catch2/catch.hpp>

#include <algorithm>

#include "process_checks.hpp"
#include "srt/error.hpp"
#include "srt/telemetry.hpp"

using namespace test_recipes;

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_telemetry {

namespace {

// ROCm's device-metrics-exporter as srtctl's docs/power-telemetry.md configures it.
constexpr char kAmdExporter[] = R"({
  "container_image": "rocm-dme", "command": "/home/amd/tools/entrypoint.sh", "port": 5000, "kind": "custom",
  "gpu_labels": {"index": "gpu_id", "identity": "serial_number"},
  "gpu_metrics": {"power": {"metric": "gpu_power_usage", "scope": "amd_device_metrics_exporter_gpu_power_usage"},
                  "gpu_util": {"metric": "gpu_gfx_activity"}, "temperature": {"metric": "gpu_junction_temperature"}}})";

std::vector<const srt::Process*> exporters(const srt::Plan& plan) {
  std::vector<const srt::Process*> out;
  for (const auto& p : plan.processes)
    if (p.role == srt::Role::gpu_exporter) out.push_back(&p);
  return out;
}

std::string error_of(const srt::Recipe& r, const srt::Profile& p, int nodes) {
  try {
    srt::make_plan(r, p, inputs(nodes));
  } catch (const srt::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("telemetry: a custom exporter keeps only what it writes, a dcgm one DCGM's defaults") {
  const srt::GpuExporter amd = srt::read_gpu_exporter(srt::Json::parse(kAmdExporter));
  CHECK(amd.index_label == "gpu_id");
  CHECK(amd.identity_label == "serial_number");
  CHECK(amd.instance_labels.empty());
  CHECK(amd.power_metric == "gpu_power_usage");
  CHECK(amd.sm_active_metric.empty());  // AMD's exporter has none, and DCGM's name must not leak in
  CHECK(amd.temperature_metric == "gpu_junction_temperature");
  const srt::GpuExporter dcgm = srt::read_gpu_exporter(srt::Json::parse(R"({"container_image": "d", "port": 9401})"));
  CHECK(dcgm.index_label == "gpu");
  CHECK(dcgm.power_metric == "DCGM_FI_DEV_POWER_USAGE");
  // Bound to the node's data-network address, not every interface as srtctl's ":{port}".
  CHECK(srt::gpu_exporter_argv(dcgm, "10.1.0.2") ==
        std::vector<std::string>{"dcgm-exporter", "--collect-interval=100", "--address", "10.1.0.2:9401"});
  CHECK(srt::gpu_exporter_argv(dcgm, "0.0.0.0") ==
        std::vector<std::string>{"dcgm-exporter", "--collect-interval=100", "--address", ":9401"});
}

TEST_CASE("telemetry: the command runs as plain words with {port} replaced, and nothing a shell would read") {
  srt::GpuExporter e;
  e.port = 9500;
  e.command = "python3  /srtctl-runtime/amd_smi_exporter.py --port {port} --listen=:{port}";
  CHECK(srt::gpu_exporter_argv(e, "10.1.0.2") == std::vector<std::string>{"python3", "/srtctl-runtime/amd_smi_exporter.py",
                                                               "--port", "9500", "--listen=:9500"});
  e.binary = "/opt/exporter/bin/gpu-exporter";
  e.command = "--port {port}";
  CHECK(srt::gpu_exporter_argv(e, "10.1.0.2") == std::vector<std::string>{"/opt/exporter/bin/gpu-exporter", "--port", "9500"});
  for (const char* bad : {"run.sh 'a b'", "run.sh $HOME", "a; b", "a && b", "a > log", "a `b`"}) {
    CAPTURE(bad);
    CHECK_FALSE(srt::gpu_exporter_command_problem(bad).empty());
    e.command = bad;
    CHECK_THROWS_AS(srt::gpu_exporter_argv(e, "10.1.0.2"), srt::Error);
  }
}

TEST_CASE("telemetry: one exporter per worker node on its port, the profile's default when the recipe names none") {
  srt::Recipe r = dsv4_2p1d();
  srt::Profile profile = srt::default_profile();
  profile.default_gpu_exporter.given = true;
  profile.default_gpu_exporter.exporter = srt::read_gpu_exporter(srt::Json::parse(kAmdExporter));
  profile.containers["rocm-dme"] = "docker://rocm/device-metrics-exporter:v1.5.2";
  const srt::Plan off = srt::make_plan(r, profile, inputs(4));
  CHECK(exporters(off).empty());
  CHECK_FALSE(off.telemetry);
  CHECK_FALSE(srt::plan_to_json(off).contains("telemetry"));  // Plans without it keep their JSON and digest

  r.telemetry.given = r.telemetry.enabled = r.telemetry.required = true;
  const srt::Plan on = srt::make_plan(r, profile, inputs(4));
  REQUIRE(on.telemetry);
  CHECK(on.telemetry->from == "profile");
  CHECK(on.telemetry->required);
  CHECK(on.telemetry->exporter.container_image == "docker://rocm/device-metrics-exporter:v1.5.2");
  CHECK(on.digest != off.digest);
  const auto ex = exporters(on);
  std::set<std::string> worker_nodes, exporter_nodes;
  for (const auto& p : on.processes)
    if (p.is_worker()) worker_nodes.insert(p.node);
  for (const auto* e : ex) {
    exporter_nodes.insert(e->node);
    CHECK(e->argv == std::vector<std::string>{"/home/amd/tools/entrypoint.sh"});
    CHECK(e->ports.metrics == std::vector<int>{5000});
    CHECK(e->readiness.path == "/metrics");
    CHECK_FALSE(e->critical);  // its death costs the measurement, not the job
    CHECK(e->container.image == "docker://rocm/device-metrics-exporter:v1.5.2");
    CHECK(e->log_file == e->node + "_gpu_exporter.out");
  }
  CHECK(exporter_nodes == worker_nodes);
  CHECK(ex.size() == worker_nodes.size());
  const srt::Json j = srt::plan_to_json(on)["telemetry"];
  CHECK(j["exporter"]["gpu_labels"]["index"] == "gpu_id");

  // The recipe's own exporter wins; a binary runs on the host.
  r.telemetry.exporter = srt::read_gpu_exporter(srt::Json::parse(R"({"container_image": "", "binary": "/usr/bin/gpu-exp",
                                                                      "command": "--port {port}", "port": 9600})"));
  const srt::Plan own = srt::make_plan(r, profile, inputs(4));
  CHECK(own.telemetry->from == "recipe");
  for (const auto* e : exporters(own)) {
    CHECK(e->container.on_host);
    CHECK(e->argv == std::vector<std::string>{"/usr/bin/gpu-exp", "--port", "9600"});
  }
}

TEST_CASE("telemetry: no exporter to run, or a port the job already plans, is refused with what to do") {
  srt::Recipe r = dsv4_2p1d();
  r.telemetry.given = r.telemetry.enabled = true;
  const std::string none = error_of(r, srt::default_profile(), 4);
  CHECK(none.find("telemetry.enabled: no GPU exporter") != std::string::npos);
  CHECK(none.find("default_gpu_exporter") != std::string::npos);
  srt::Profile profile = srt::default_profile();
  profile.default_gpu_exporter.given = true;  // written as null: the default switched off
  CHECK(error_of(r, profile, 4).find("default_gpu_exporter is null") != std::string::npos);

  // The public frontend port is fixed on the head node: an exporter there cannot take it.
  srt::GpuExporter clash;
  clash.container_image = "x";
  clash.port = profile.frontend_port;
  r.telemetry.exporter = clash;
  r.resources.prefill_nodes = r.resources.decode_nodes = r.resources.prefill_workers = r.resources.decode_workers = 0;
  r.resources.agg_nodes = r.resources.agg_workers = 1;
  r.resources.gpus_per_agg = 8;
  r.backend.aggregated_config = r.backend.decode_config;
  r.frontend.type = "atom";  // the worker serves the public port on its own node
  const std::string port = error_of(r, profile, 1);
  CHECK(port.find("GPU exporter's port") != std::string::npos);
}

}  // namespace test_telemetry

// vLLM workers and the vLLM Router as srtctl renders them (backends/vllm.py build_worker_command
// for direct workers, frontends/vllm_router.py), with every port they bind planned: the public or
// HTTP port, the private VLLM_PORT scan range, the router's Prometheus port.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "process_checks.hpp"
#include "srt/contract.hpp"
#include "srt/engines.hpp"
#include "srt/port_check.hpp"

using namespace test_recipes;

namespace {

srt::Recipe vllm_agg(int gpus, int workers, const std::string& frontend) {
  srt::Recipe r;
  r.source.file = "vllm.yaml";
  r.name = "vllm";
  r.model.path = "hf:deepseek-ai/DeepSeek-V4-Pro-0813";
  r.resources.gpu_type = "mi355x";
  r.resources.gpus_per_node = 8;
  r.resources.agg_nodes = 1;
  r.resources.agg_workers = workers;
  r.resources.gpus_per_agg = gpus;
  r.backend.type = "vllm";
  r.backend.aggregated_config = {{"tensor-parallel-size", gpus}, {"trust_remote_code", true},
                                 {"enable-prefix-caching", false}, {"no-disable-hybrid-kv-cache-manager", true},
                                 {"max-num-seqs", 64}, {"gpu-memory-utilization", 0.86},
                                 {"compilation-config", {{"mode", 3}}}, {"quantization", nullptr},
                                 {"host", "127.0.0.1"}, {"port", 9999}, {"connector", nullptr}};
  r.backend.aggregated_environment = {{"VLLM_ROCM_USE_AITER", "1"}};
  r.frontend.type = frontend;
  r.frontend.enable_multiple_frontends = false;
  r.benchmark.type = "custom";
  r.benchmark.command = "echo bench";
  return r;
}

srt::Recipe vllm_dep8() {
  srt::Recipe r = vllm_agg(8, 1, "vllm-router");
  r.backend.aggregated_config["tensor-parallel-size"] = 1;
  r.backend.aggregated_config["data-parallel-size"] = 8;
  r.frontend.args = {{"policy", "consistent_hash"}, {"request-timeout-secs", 14400}, {"disable-retries", true}};
  r.health_check = srt::HealthCheck{1080, 10};
  return r;
}

std::string gpu_list(std::vector<int> gpus) {
  std::sort(gpus.begin(), gpus.end());
  std::string out;
  for (int g : gpus) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

}  // namespace

TEST_CASE("vllm direct: `vllm serve MODEL` on the public port, role args as srtctl renders them") {
  const srt::Plan plan = srt::make_plan(vllm_agg(8, 1, "vllm"), srt::default_profile(), inputs(1));
  REQUIRE(plan.find("router") == nullptr);
  const srt::Process& w = *plan.find("agg:0");
  CHECK(w.adapter == "vllm");
  CHECK(w.argv == std::vector<std::string>{
                      "vllm", "serve", "deepseek-ai/DeepSeek-V4-Pro-0813", "--host", "10.0.0.1", "--port", "8000",
                      "--device-ids", "0,1,2,3,4,5,6,7",
                      // sorted by the key as written; '_' -> '-'; a mapping is one JSON argument
                      "--compilation-config", R"({"mode":3})", "--gpu-memory-utilization", "0.86",
                      "--max-num-seqs", "64", "--no-disable-hybrid-kv-cache-manager", "--served-model-name",
                      "DeepSeek-V4-Pro-0813", "--tensor-parallel-size", "8", "--trust-remote-code"});
  CHECK_FALSE(has_arg(w, "--enable-prefix-caching"));  // false: dropped, as srtctl does
  CHECK_FALSE(has_arg(w, "9999"));                      // the recipe's port: srtctl owns it
  CHECK(w.ports.http == std::vector<int>{8000});
  REQUIRE(w.ports.scan.size() == 50);
  CHECK(w.ports.scan.back() == w.ports.scan.front() + 49);
  CHECK(env_of(w, "VLLM_PORT") == std::to_string(w.ports.scan.front()));
  CHECK(env_of(w, "ROCR_VISIBLE_DEVICES") == "<unset>");  // --device-ids chooses the GPUs
  CHECK(env_of(w, "VLLM_ROCM_USE_AITER") == "1");
  CHECK(env_of(w, "SRT_HTTP_PORT") == "8000");
  CHECK(env_of(w, "SRT_WORKER_ROLE") == "agg");
  CHECK(w.readiness.kind == "http");
  CHECK(w.readiness.path == "/health");
  CHECK(srt::progress_metric(w) == "vllm:request_success_total");
  no_port_twice(plan);
  // The audit lists the scan range like every other port.
  std::set<int> audited;
  for (const auto& u : srt::planned_ports(plan)) audited.insert(u.port);
  for (int p : w.ports.scan) CHECK(audited.count(p) == 1);
}

TEST_CASE("listeners: vLLM's workers and the vLLM Router bind their node's address", "[listeners]") {
  CHECK(check_listen_hosts(vllm_dep8()) == 3);
  CHECK(check_listen_hosts(vllm_agg(8, 1, "vllm")) == 1);
}

TEST_CASE("vllm partial-node workers: --device-ids is exactly each worker's bound GPUs") {
  for (int gpus : {2, 4}) {
    const srt::Plan direct = srt::make_plan(vllm_agg(gpus, 1, "vllm"), srt::default_profile(), inputs(1));
    const srt::Process& one = *direct.find("agg:0");
    CHECK(arg_after(one, "--device-ids") == gpu_list(one.gpus));
    CHECK(int(one.gpus.size()) == gpus);
    CHECK(env_of(one, "ROCR_VISIBLE_DEVICES") == "<unset>");  // would renumber the ids

    const srt::Plan routed = srt::make_plan(vllm_agg(gpus, 8 / gpus, "vllm-router"), srt::default_profile(), inputs(1));
    std::set<int> seen;
    std::vector<std::pair<int, int>> scans;
    for (const auto& p : routed.processes) {
      if (!p.is_worker()) continue;
      CHECK(arg_after(p, "--device-ids") == gpu_list(p.gpus));
      for (int g : p.gpus) CHECK(seen.insert(g).second);  // no GPU twice
      scans.emplace_back(p.ports.scan.front(), p.ports.scan.back());
    }
    CHECK(seen.size() == 8);
    std::sort(scans.begin(), scans.end());
    for (std::size_t i = 1; i < scans.size(); ++i) CHECK(scans[i].first > scans[i - 1].second);  // never overlap
    no_port_twice(routed);
  }
}

namespace {

// Eight GPUs, two NUMA nodes of 32 CPUs: enough of a node for bind_step.
srt::NodeTopology eight_gpus() {
  srt::NodeTopology topo;
  for (int g = 0; g < 8; ++g) {
    srt::Gpu gpu;
    gpu.index = g;
    gpu.numa = g / 4;
    gpu.cpuset = g < 4 ? "0-31" : "32-63";
    topo.gpus.push_back(gpu);
  }
  return topo;
}

bool sets(const srt::StepEnvironment& env, const std::string& name) {
  return std::any_of(env.set.begin(), env.set.end(), [&](const auto& kv) { return kv.first == name; });
}

}  // namespace

// The second of two 4-GPU workers runs `--device-ids 4,5,6,7`; narrowing ROCR_VISIBLE_DEVICES to
// those four would make vLLM read 4..7 as positions among four GPUs.
TEST_CASE("vllm worker step: --device-ids keeps the node's GPU visibility, and a grant that renumbers is refused") {
  const srt::Plan plan = srt::make_plan(vllm_agg(4, 2, "vllm-router"), srt::default_profile(), inputs(1));
  const srt::Process* second = nullptr;
  for (const auto& p : plan.processes)
    if (p.is_worker() && p.gpus.front() == 4) second = &p;
  REQUIRE(second != nullptr);
  REQUIRE(arg_after(*second, "--device-ids") == "4,5,6,7");

  for (const std::string granted : {"", "0,1,2,3,4,5,6,7"}) {
    INFO("granted '" << granted << "'");
    srt::StepEnvironment env = srt::step_environment(plan, second->node_index, second->name);
    srt::NodeGrant grant;
    grant.visible_devices = grant.node_gpus = granted;
    srt::bind_step(env, eight_gpus(), grant, srt::default_profile());
    CHECK_FALSE(sets(env, "ROCR_VISIBLE_DEVICES"));
    CHECK_FALSE(sets(env, "HIP_VISIBLE_DEVICES"));
    CHECK(env.cpus == "32-63");
  }
  srt::StepEnvironment env = srt::step_environment(plan, second->node_index, second->name);
  srt::NodeGrant half;
  half.visible_devices = half.node_gpus = "4,5,6,7";
  CHECK_THROWS_WITH(srt::bind_step(env, eight_gpus(), half, srt::default_profile()),
                    Catch::Contains("under which vLLM would read them as positions") &&
                        Catch::Contains("--device-ids 4,5,6,7") && Catch::Contains("set_visible_devices"));

  // An ATOM or SGLang worker is still masked by the variable: only argv-named GPUs skip it.
  srt::Recipe masked = vllm_agg(4, 2, "vllm-router");
  masked.backend.set_visible_devices = true;
  const srt::Plan mplan = srt::make_plan(masked, srt::default_profile(), inputs(1));
  for (const auto& p : mplan.processes) {
    if (!p.is_worker() || p.gpus.front() != 4) continue;
    srt::StepEnvironment menv = srt::step_environment(mplan, p.node_index, p.name);
    srt::bind_step(menv, eight_gpus(), srt::NodeGrant{}, srt::default_profile());
    CHECK(sets(menv, "ROCR_VISIBLE_DEVICES"));
  }
}

TEST_CASE("vllm set_visible_devices: the visibility variable, no --device-ids") {
  srt::Recipe r = vllm_agg(4, 1, "vllm");
  r.backend.set_visible_devices = true;
  r.backend.vllm_serve_binary = "vllm-rs";
  const srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(1));
  const srt::Process& w = *plan.find("agg:0");
  CHECK_FALSE(has_arg(w, "--device-ids"));
  CHECK(env_of(w, "ROCR_VISIBLE_DEVICES") == gpu_list(w.gpus));
  CHECK(w.argv.front() == "vllm-rs");  // the public worker may run another server binary
  // Behind the environment a profile's command sets first, the program is what is replaced.
  srt::Profile p = srt::default_profile();
  p.vllm_command = {"env", "PYTHONPATH=/lab/pkg", "/lab/bin/vllm", "serve"};
  const srt::Plan lab_plan = srt::make_plan(r, p, inputs(1));
  const srt::Process& lab = *lab_plan.find("agg:0");
  CHECK(std::vector<std::string>(lab.argv.begin(), lab.argv.begin() + 4) ==
        std::vector<std::string>{"env", "PYTHONPATH=/lab/pkg", "vllm-rs", "serve"});
}

TEST_CASE("vllm-router: static worker list, DP ranks, startup timeout from the health check, Prometheus planned") {
  const srt::Plan plan = srt::make_plan(vllm_dep8(), srt::default_profile(), inputs(1));
  const srt::Process& w = *plan.find("agg:0");
  const srt::Process& router = *plan.find("router");
  CHECK(w.dp_ranks == 8);
  CHECK(w.argv.front() == "vllm");  // routed workers run vllm whatever vllm_serve_binary says
  CHECK(arg_after(w, "--data-parallel-size") == "8");
  CHECK(arg_after(w, "--device-ids") == "0,1,2,3,4,5,6,7");
  REQUIRE(router.ports.metrics.size() == 1);
  const std::string url = "http://10.0.0.1:" + std::to_string(w.ports.http.at(0));
  CHECK(router.argv == std::vector<std::string>{
                           "vllm-router", "--worker-urls", url, "--host", "10.0.0.1", "--port", "8000",
                           "--intra-node-data-parallel-size", "8", "--worker-startup-timeout-secs", "10800",
                           "--prometheus-port", std::to_string(router.ports.metrics[0]), "--prometheus-host",
                           "10.0.0.1", "--policy", "consistent_hash", "--request-timeout-secs", "14400",
                           "--disable-retries"});
  CHECK(router.adapter == "vllm-router");
  CHECK(router.readiness.kind == "workers");
  CHECK(router.readiness.path == "/workers");
  no_port_twice(plan);

  srt::Recipe given = vllm_dep8();
  given.frontend.args["worker_startup_timeout_secs"] = 60;
  const srt::Plan plan2 = srt::make_plan(given, srt::default_profile(), inputs(1));
  const srt::Process& r2 = *plan2.find("router");
  CHECK(std::count(r2.argv.begin(), r2.argv.end(), "--worker-startup-timeout-secs") == 1);
  CHECK(arg_after(r2, "--worker-startup-timeout-secs") == "60");
}

TEST_CASE("vllm: what cannot be planned is refused with the reason") {
  srt::Recipe port = vllm_dep8();
  port.frontend.args["prometheus-port"] = 29000;
  CHECK_THROWS_WITH(srt::make_plan(port, srt::default_profile(), inputs(1)), Catch::Contains("set by srt-spank"));

  srt::Recipe dp = vllm_dep8();
  dp.backend.aggregated_config["tensor-parallel-size"] = 2;
  CHECK_THROWS_WITH(srt::make_plan(dp, srt::default_profile(), inputs(1)), Catch::Contains("but the worker has 8"));

  srt::Recipe intra = vllm_dep8();
  intra.frontend.args["intra-node-data-parallel-size"] = 4;
  CHECK_THROWS_WITH(srt::make_plan(intra, srt::default_profile(), inputs(1)), Catch::Contains("conflicts"));

  srt::Recipe nixl = vllm_agg(8, 1, "vllm");
  nixl.backend.aggregated_config["connector"] = "nixl";
  CHECK_THROWS_WITH(srt::make_plan(nixl, srt::default_profile(), inputs(1)), Catch::Contains("cannot plan yet"));

  srt::Recipe pd = vllm_agg(8, 1, "vllm-router");
  pd.resources.agg_nodes = pd.resources.agg_workers = pd.resources.gpus_per_agg = 0;
  pd.resources.prefill_nodes = pd.resources.decode_nodes = 1;
  pd.resources.decode_nodes_given = true;
  pd.resources.prefill_workers = pd.resources.decode_workers = 1;
  pd.resources.gpus_per_prefill = pd.resources.gpus_per_decode = 8;
  pd.backend.prefill_config = pd.backend.decode_config = pd.backend.aggregated_config;
  CHECK_THROWS_WITH(srt::make_plan(pd, srt::default_profile(), inputs(2)), Catch::Contains("prefill/decode vLLM workers"));

  srt::Recipe offload = vllm_agg(8, 1, "vllm");
  offload.backend.aggregated_config["kv_transfer_config"] = {{"kv_connector", "SimpleCPUOffloadConnector"}};
  const srt::Plan plan = srt::make_plan(offload, srt::default_profile(), inputs(1));
  const srt::Process& w = *plan.find("agg:0");
  CHECK(arg_after(w, "--kv-transfer-config") == R"({"kv_connector":"SimpleCPUOffloadConnector"})");
}

// vllm-router's own counter is not confirmed for the release InferenceX installs: the stall watch
// reads the workers' vllm:request_success_total only, behind the router and direct alike.
TEST_CASE("progress sources: vLLM workers' vllm:request_success_total, nothing from vllm-router") {
  for (const char* frontend : {"vllm-router", "vllm"}) {
    INFO(frontend);
    const int workers = std::string(frontend) == "vllm" ? 1 : 2;  // direct: the one worker serves the public port
    const srt::Plan plan = srt::make_plan(vllm_agg(8 / workers, workers, frontend), srt::default_profile(), inputs(1));
    const auto sources = srt::progress_sources(plan);
    REQUIRE(sources.size() == std::size_t(workers));
    for (const auto& s : sources) {
      CHECK(s.process->is_worker());
      CHECK(s.metric == "vllm:request_success_total");
      CHECK(s.label.empty());
      CHECK(s.port == s.process->ports.http.at(0));
    }
  }
}

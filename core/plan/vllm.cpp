// The vLLM engine: `vllm serve MODEL` per aggregated worker, as srtctl renders a direct worker
// (frontends vllm and vllm-router; NVIDIA/srt-slurm src/srtctl/backends/vllm.py @ 009a4fa3,
// VLLMBackend.build_worker_command and _config_to_cli_args). One node per worker: vLLM runs every
// local TP and DP rank as children of that one process (EngineCores, Workers, DPCoordinator).
// Prefill/decode workers (KV connectors, NIXL side channels) and workers spanning nodes
// (--master-addr/--headless, router-local DP) are not planned: the refusal says so.
#include <algorithm>
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"

namespace srt::plan_detail {

namespace {

// srtctl gives every process a private VLLM_PORT 50 ports wide (ports.py VLLM_SCAN_PORTS): vLLM's
// get_open_port() starts there and walks up, for the torch rendezvous, the DP master ports
// (ParallelConfig takes five) and its ZMQ sockets. The block is reserved so two workers on a
// node never scan into each other, nor into any other planned port.
constexpr int kScanWidth = 50;

// The role args srtctl drops before rendering (_VLLM_ORCHESTRATION_FLAGS: it derives them from
// the allocation), and the connector keys it re-renders as one --kv-transfer-config.
bool orchestration(const std::string& key) {
  const std::string k = normalized_flag(key);
  return k == "headless" || k == "host" || k == "port" || k == "master-addr" || k == "nnodes" || k == "node-rank";
}
bool connector_key(const std::string& key) {
  const std::string k = normalized_flag(key);
  return k == "connector" || k == "kv-transfer-config";
}

// The role args as srtctl passes them to a direct aggregated worker: orchestration flags gone,
// served-model-name defaulted, and the role's own KV transfer config (an aggregated worker gets
// no connector unless its role names one: KV offload, e.g. SimpleCPUOffloadConnector).
Json role_config(const Recipe& r, const Endpoint& e) {
  const Json& written = r.backend.config(e.mode);
  Json config = Json::object();
  std::string transfer;
  for (auto it = written.begin(); it != written.end(); ++it) {
    if (orchestration(it.key())) continue;
    if (!connector_key(it.key())) {
      config[it.key()] = it.value();
      continue;
    }
    const Json& v = it.value();
    if (v.is_null() || (v.is_string() && (v == "null" || v == "none" || v == "None"))) continue;
    if (normalized_flag(it.key()) == "kv-transfer-config") {
      transfer = v.is_string() ? v.get<std::string>() : v.dump();
    } else if (transfer.empty()) {
      const std::string c = v.is_string() ? v.get<std::string>() : v.dump();
      if (c.empty() || c.front() != '{')
        fail("the aggregated vLLM worker names KV connector '" + c + "', which srt-spank cannot plan yet",
             "give the role a raw kv-transfer-config JSON instead, or use srtctl");
      transfer = c;  // raw JSON passes through, as srtctl's _connector_to_kv_transfer_config does
    }
  }
  if (!transfer.empty()) config["kv-transfer-config"] = transfer;
  if (!find_flag(config, {"served-model-name"})) config["served-model-name"] = role_served_model_name(r);
  return config;
}

struct VllmShape {
  int tp = 1, pp = 1, pcp = 1, dp = 1;
  std::int64_t replica() const { return std::int64_t(tp) * pp * pcp; }  // each at most kMaxParallelSize
};

VllmShape vllm_shape(const Json& config) {
  VllmShape s;
  s.tp = parallel_size(config, {"tensor-parallel-size", "tp"}, "vLLM");
  s.pp = parallel_size(config, {"pipeline-parallel-size", "pp"}, "vLLM");
  s.pcp = parallel_size(config, {"prefill-context-parallel-size", "pcp"}, "vLLM");
  s.dp = parallel_size(config, {"data-parallel-size", "dp"}, "vLLM");
  return s;
}

std::vector<Process> vllm_workers(const WorkerContext& ctx, const EndpointSite& site) {
  const Recipe& r = ctx.recipe;
  const Endpoint& e = site.endpoint;
  const std::string name = std::string(to_string(e.mode)) + ":" + std::to_string(e.index);
  if (e.mode != WorkerMode::agg)
    fail("vLLM " + name + ": prefill/decode vLLM workers cannot be planned yet (KV connector, NIXL ports)",
         "srt-spank plans aggregated vLLM workers (frontend.type vllm or vllm-router); use srtctl for P/D");
  if (site.nodes.size() != 1)
    fail("vLLM " + name + " spans " + std::to_string(site.nodes.size()) + " nodes; multi-node vLLM workers "
         "cannot be planned yet", "give the worker at most one node's GPUs, or use srtctl");
  if (ctx.kv_mode != KvMode::off)
    fail("KV events from vLLM workers cannot be planned yet", "set backend.enable_kv_events: false");

  const Json config = role_config(r, e);
  const VllmShape shape = vllm_shape(config);
  const int gpus = int(e.gpus.size());
  // srtctl's vLLM Router validate and _validate_endpoint_parallelism: every GPU is one rank.
  if (shape.dp > 1 && shape.dp * shape.replica() != std::int64_t(gpus))
    fail("vLLM " + name + ": data-parallel-size x tensor x pipeline x prefill-context parallel = " +
             std::to_string(shape.dp) + " x " + std::to_string(shape.replica()) + " GPUs, but the worker has " +
             std::to_string(gpus),
         "make the role's parallel sizes multiply to its GPU count");

  const PlanNode& node = *site.nodes.front();
  NodePorts& ports = *site.ports.front();
  Process w = worker_process(e, node, "vllm");
  w.ranks = gpus;
  // The vLLM Router expands each URL into its node-local DP ranks (routed_process_dp_size).
  w.dp_ranks = shape.dp;
  const bool direct = site.public_port > 0;
  const int http = direct ? site.public_port : ports.one(name + " http");
  w.ports.http = {http};
  w.ports.scan = ports.block(kScanWidth, name + " VLLM_PORT scan range");
  w.readiness = {"http", http, "/health"};

  w.argv = ctx.profile.vllm_command;
  // The public worker may run another OpenAI server binary (vllm-rs); routed workers run vllm.
  if (const std::size_t program = command_program_index(w.argv);
      direct && !r.backend.vllm_serve_binary.empty() && program < w.argv.size())
    w.argv[program] = r.backend.vllm_serve_binary;
  w.argv.insert(w.argv.end(), {model_argument(r, ctx.profile), "--host", listen_host(ctx.profile, node.address), "--port", std::to_string(http)});
  // GPUs by physical index; with set_visible_devices the variable masks them instead (then the
  // indices would count within the mask, so --device-ids is left out).
  std::vector<int> ids = e.gpus;
  std::sort(ids.begin(), ids.end());
  if (!r.backend.set_visible_devices && !ids.empty()) {
    w.argv.insert(w.argv.end(), {"--device-ids", join(ids)});
    w.gpus_in_argv = true;
  }
  const auto flags = role_flags(config, [](const std::string&) { return false; });
  w.argv.insert(w.argv.end(), flags.begin(), flags.end());

  // Environment, in srtctl's merge order: role env, global env, then ours.
  for (const auto& [k, v] : r.backend.environment(e.mode)) set_env(w.env, k, substitute_node(v, node.name, node.index));
  for (const auto& [k, v] : r.environment) set_env(w.env, k, substitute_node(v, node.name, node.index));
  if (r.backend.set_visible_devices) set_env(w.env, ctx.profile.visible_devices_env, join(ids));
  set_env(w.env, "VLLM_PORT", std::to_string(w.ports.scan.front()));
  set_worker_identity_env(w);
  return {std::move(w)};
}

class VllmEngine final : public EngineAdapter {
 public:
  const char* name() const override { return "vllm"; }
  std::vector<Process> workers(const WorkerContext& ctx, const EndpointSite& site) const override {
    return vllm_workers(ctx, site);
  }
  std::vector<std::string> bind(Process& w, const WorkerBinding& b, const std::string&, const Profile&,
                                std::uint64_t) const override {
    if (!b.cpus.empty()) set_env(w.env, "SRT_WORKER_CPUS", b.cpus);
    return {};
  }
  // vllm/v1/metrics/loggers.py: the finished-request counter on the API server's /metrics.
  const char* progress_metric() const override { return "vllm:request_success_total"; }
};

}  // namespace

const EngineAdapter& vllm_engine() {
  static const VllmEngine engine;
  return engine;
}

}  // namespace srt::plan_detail

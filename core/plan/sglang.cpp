// The SGLang engine: `python3 -m sglang.launch_server` per worker per node, as srtctl renders it
// (NVIDIA/srt-slurm src/srtctl/backends/sglang.py @ 00660c91, build_worker_command). Node rank 0
// serves HTTP and, on a prefill worker, the KV bootstrap server; the other nodes run schedulers
// and a health-only HTTP server on their --port.
#include <algorithm>
#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"

namespace srt::plan_detail {

namespace {

// sglang/srt/server_args.py (PortArgs.init_new, read at sgl-project/sglang main): under DP
// attention the tokenizer, detokenizer, RPC, metrics, scheduler-input and load-collector sockets
// sit on 127.0.0.1 at dist_init_port+1..+6, where dist_init_port is --port + 233 on one node, or
// the --dist-init-addr port across nodes; the DP-attention handshake binds +13 from the same base.
// SGLang waits 30 s for each and then kills the scheduler ("port_base ... not available"), so the
// Plan reserves them like any port it hands out.
constexpr int kZmqTcpPortDelta = 233;
constexpr int kDpAttentionHandshakeDelta = 13;
constexpr int kDerivedPorts = 6;

// The keys srtctl pops from the role's args before rendering them: it sets them itself.
bool popped(const std::string& key) {
  const std::string k = normalized_flag(key);
  return k == "model-path" || k == "served-model-name" || k == "nccl-port" || k == "grpc-port";
}

// Keys srtctl renders itself and does not pop: a recipe value would come after srtctl's and win
// (argparse keeps the last), moving a socket the Plan reserved and audits elsewhere.
const char* const kSglangManaged[] = {"port", "host", "dist-init-addr", "nccl-init-addr", "nnodes", "node-rank",
                                "disaggregation-mode", "disaggregation-bootstrap-port", "kv-events-config"};

// An empty list leaves the bare flag, which InferenceX fills per concurrency before it applies a
// recipe (cuda-graph-bs-decode: []).
std::vector<std::string> sglang_flags(const Json& config) { return role_flags(config, popped); }

void refuse_managed(const Recipe& r, WorkerMode mode, const Json& config) {
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string k = normalized_flag(it.key());
    for (const char* m : kSglangManaged) {
      if (k != m) continue;
      const std::string role = mode == WorkerMode::agg ? "aggregated" : to_string(mode);
      Diagnostic d;
      d.file = r.source.file;
      d.key_path = "backend.sglang_config." + role + "." + it.key();
      d.mark = r.source.mark_of(d.key_path);
      d.message = "--" + k + " is set by srt-spank for every SGLang worker (each port is planned, reserved and "
                  "audited; a recipe value would override it and move the socket)";
      d.hint = "remove " + it.key() + " from the role's args";
      throw Error(d);
    }
  }
}

// --model-path: the Hugging Face id as given, else where the profile's alias or the path points.
std::string sglang_model_path(const Recipe& r, const Profile& p) { return model_argument(r, p); }

struct SglangShape {
  int tp = 1, dp = 1;
  bool dp_attention = false;
};

SglangShape sglang_shape(const Json& config) {
  SglangShape s;
  s.tp = parallel_size(config, {"tp-size", "tensor-parallel-size", "tp"}, "SGLang");
  s.dp = parallel_size(config, {"dp-size", "data-parallel-size", "dp"}, "SGLang");
  s.dp_attention = flag_enabled(config, {"enable-dp-attention"});
  return s;
}

std::string kv_events_config(const std::string& endpoint) {
  Json c = Json::object();
  c["publisher"] = "zmq";
  c["topic"] = "kv-events";
  c["endpoint"] = endpoint;
  return c.dump();
}

std::vector<Process> sglang_workers(const WorkerContext& ctx, const EndpointSite& site) {
  const Recipe& r = ctx.recipe;
  const Endpoint& e = site.endpoint;
  const Json& config = r.backend.config(e.mode);
  refuse_managed(r, e.mode, config);
  const SglangShape shape = sglang_shape(config);
  const bool pd = e.mode != WorkerMode::agg;
  const int nnodes = int(site.nodes.size());
  const bool multi_node = nnodes > 1;
  const std::string mode = to_string(e.mode);
  const std::string name = mode + ":" + std::to_string(e.index);
  const std::vector<std::string> flags = sglang_flags(config);

  // The leader's --dist-init-addr port and the DP-attention block derived from it, reserved on the
  // leader's node before anything else of the endpoint.
  int dist_init = 0;
  std::vector<int> leader_derived;
  if (multi_node) {
    std::vector<std::pair<int, int>> blocks = {{0, 1}};
    if (shape.dp_attention) blocks.insert(blocks.end(), {{1, kDerivedPorts}, {kDpAttentionHandshakeDelta, 1}});
    dist_init = site.ports.front()->pattern(blocks, name + " --dist-init-addr port");
    if (shape.dp_attention) {
      for (int i = 1; i <= kDerivedPorts; ++i) leader_derived.push_back(dist_init + i);
      leader_derived.push_back(dist_init + kDpAttentionHandshakeDelta);
    }
  }

  std::vector<Process> out;
  for (int rank = 0; rank < nnodes; ++rank) {
    const PlanNode& node = *site.nodes[std::size_t(rank)];
    NodePorts& ports = *site.ports[std::size_t(rank)];
    Process w = worker_process(e, node, "sglang");
    w.ranks = int(e.gpus.size());
    w.dp_ranks = shape.dp;  // /server_info dp_size: one router worker per DP rank under --dp-aware

    // HTTP (a health-only server on followers), with the single-node DP-attention block at fixed
    // offsets from it.
    const bool derive_from_http = shape.dp_attention && !multi_node;
    int http = 0;
    if (rank == 0 && site.public_port > 0) {
      http = site.public_port;  // direct: the make_plan claimed it
      if (derive_from_http) {
        ports.claim(http + kDpAttentionHandshakeDelta, name + " DP-attention handshake (--port+13)");
        for (int i = 0; i <= kDerivedPorts; ++i)
          ports.claim(http + kZmqTcpPortDelta + i, name + " DP-attention ZMQ block (--port+233..239)");
      }
    } else if (derive_from_http) {
      http = ports.pattern({{0, 1}, {kDpAttentionHandshakeDelta, 1}, {kZmqTcpPortDelta, kDerivedPorts + 1}},
                           name + " http and its DP-attention block");
    } else {
      http = ports.one(name + (rank == 0 ? " http" : " health (node rank " + std::to_string(rank) + ")"));
    }
    w.ports.http = {http};
    if (derive_from_http) {
      w.ports.derived.push_back(http + kDpAttentionHandshakeDelta);
      for (int i = 0; i <= kDerivedPorts; ++i) w.ports.derived.push_back(http + kZmqTcpPortDelta + i);
    }
    if (rank == 0 && multi_node) {
      w.ports.dist_init = {dist_init};
      w.ports.derived = leader_derived;
    }
    w.ports.nccl = {ports.one(name + " --nccl-port")};
    // A busy bootstrap port is only logged by SGLang (its decode peers then register nowhere), so
    // it is planned and audited like the rest. srtctl passes it to every prefill process.
    if (e.mode == WorkerMode::prefill) w.ports.bootstrap = {ports.one(name + " --disaggregation-bootstrap-port")};
    if (ctx.kv_mode == KvMode::offset)  // SGLang publishes on base + attention-DP rank
      w.ports.kv_events = ports.block(shape.dp_attention ? shape.dp : 1, name + " KV-event block");
    w.readiness = {"http", http, "/health"};

    w.argv = ctx.profile.sglang_command;
    w.argv.insert(w.argv.end(), {"--model-path", sglang_model_path(r, ctx.profile), "--served-model-name",
                                 role_served_model_name(r), "--host", listen_host(ctx.profile, node.address), "--port", std::to_string(http),
                                 "--nccl-port", std::to_string(w.ports.nccl.front())});
    if (pd) {
      w.argv.insert(w.argv.end(), {"--disaggregation-mode", mode, "--skip-server-warmup"});
      if (!w.ports.bootstrap.empty())
        w.argv.insert(w.argv.end(), {"--disaggregation-bootstrap-port", std::to_string(w.ports.bootstrap.front())});
    }
    if (multi_node)
      w.argv.insert(w.argv.end(), {"--dist-init-addr", site.nodes.front()->address + ":" + std::to_string(dist_init),
                                   "--nnodes", std::to_string(nnodes), "--node-rank", std::to_string(rank)});
    if (ctx.kv_mode == KvMode::offset)
      w.argv.insert(w.argv.end(), {"--kv-events-config", kv_events_config("tcp://*:" + std::to_string(w.ports.kv_events.front()))});
    else if (ctx.kv_mode == KvMode::relay && site.relay && rank == 0)
      // An endpoint without `*` makes SGLang's publishers connect (zmq_publisher), every rank to
      // the worker's relay.
      w.argv.insert(w.argv.end(), {"--kv-events-config", kv_events_config(kv_relay_ingress(*site.relay))});
    w.argv.insert(w.argv.end(), flags.begin(), flags.end());

    // Environment, in srtctl's merge order: role env, global env, then ours.
    for (const auto& [k, v] : r.backend.environment(e.mode))
      set_env(w.env, k, substitute_node(v, node.name, node.index));
    for (const auto& [k, v] : r.environment) set_env(w.env, k, substitute_node(v, node.name, node.index));
    if (int(e.gpus.size()) < gpus_per_node(r, ctx.profile)) set_env(w.env, ctx.profile.visible_devices_env, join(e.gpus));
    // The address SGLang advertises for its KV sockets (MoRI, Mooncake) and registers with the
    // bootstrap server: the data network's, not whatever get_local_ip_auto() guesses.
    set_env(w.env, "SGLANG_HOST_IP", node.address);
    set_worker_identity_env(w);
    out.push_back(std::move(w));
  }
  return out;
}

std::string arg_value(const Process& w, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < w.argv.size(); ++i)
    if (w.argv[i] == flag) return w.argv[i + 1];
  return "";
}

class SglangEngine final : public EngineAdapter {
 public:
  const char* name() const override { return "sglang"; }
  std::vector<Process> workers(const WorkerContext& ctx, const EndpointSite& site) const override {
    return sglang_workers(ctx, site);
  }
  std::vector<std::string> bind(Process& w, const WorkerBinding& b, const std::string& host_ip, const Profile&,
                                std::uint64_t) const override {
    if (!host_ip.empty()) set_env(w.env, "SGLANG_HOST_IP", host_ip);
    if (!b.cpus.empty()) set_env(w.env, "SRT_WORKER_CPUS", b.cpus);
    // MoRI: SGLang copies --disaggregation-ib-device verbatim into MORI_RDMA_DEVICES, which MoRI
    // reads as a filter of the devices every rank may open (mori RdmaContext::Initialize;
    // sglang disaggregation/mori/conn.py). A recipe that names the devices keeps its own list;
    // otherwise the NICs paired with this worker's GPUs are the filter, never a per-GPU JSON map.
    if (arg_value(w, "--disaggregation-transfer-backend") == "mori" && arg_value(w, "--disaggregation-ib-device").empty()) {
      std::vector<std::string> nics;
      for (const auto& d : b.ib_devices)
        if (!d.empty() && std::find(nics.begin(), nics.end(), d) == nics.end()) nics.push_back(d);
      if (!nics.empty()) set_env(w.env, "MORI_RDMA_DEVICES", join(nics));
    }
    return {};
  }
  const char* progress_metric() const override { return "sglang:num_requests_total"; }  // metrics/collector.py
  // --disaggregation-transfer-backend (default mooncake; sglang/srt/server_args.py): mooncake,
  // mori and nixl move KV over RDMA, mooncake_tcp over TCP, fake not at all.
  // A prefill or decode server serves a request alone only with SGLang's fake bootstrap host, as
  // its own warmup sends it (srt/warmup.py _make_warmup_req: bootstrap_room 0, bootstrap_host
  // FAKE_BOOTSTRAP_HOST "2.2.2.2", disaggregation/utils.py): the decode then skips the transfer.
  // Without them a decode refuses the request.
  Json canary_fields(const Process& w) const override {
    if (w.role != Role::prefill && w.role != Role::decode) return Json::object();
    return Json{{"bootstrap_host", "2.2.2.2"}, {"bootstrap_room", 0}};
  }
  bool kv_over_rdma(const Recipe& r) const override {
    for (WorkerMode m : {WorkerMode::prefill, WorkerMode::decode}) {
      const Json& c = r.backend.config(m);
      for (const char* key : {"disaggregation-transfer-backend", "disaggregation_transfer_backend"})
        if (auto it = c.find(key); it != c.end() && it->is_string())
          if (const std::string b = it->get<std::string>(); b == "mooncake_tcp" || b == "fake") return false;
    }
    return true;
  }
  // Shared-memory segments SGLang leaves when killed (multi-tokenizer arguments, sgl_shm_*).
  std::vector<std::string> teardown_sweep() const override {
    return {"/dev/shm/multi_tokenizer_args_*", "/dev/shm/sgl_shm_*"};
  }
};

}  // namespace

const EngineAdapter& sglang_engine() {
  static const SglangEngine engine;
  return engine;
}

}  // namespace srt::plan_detail

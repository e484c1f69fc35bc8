#include <string>

#include "flags.hpp"
#include "processes.hpp"
#include "srt/data_network.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"

namespace srt::plan_detail {

namespace {

int int_flag(const Json& config, const std::vector<std::string>& names, int fallback) {
  const Json* v = find_flag(config, names);
  if (!v) return fallback;
  if (v->is_number_integer()) return v->get<int>();
  if (v->is_string()) {
    try { return std::stoi(v->get<std::string>()); } catch (const std::exception&) {}
  }
  return fallback;
}

// Where a kv-relay listens: the node's address, the one kv_event_endpoints advertise, so the
// relay is reachable there and not on every interface of the node (issue 23). libzmq binds only
// interface names and IP literals, so a node known only by its name keeps `*`.
std::string relay_bind_host(const std::string& address) { return is_ipv4_address(address) ? address : "*"; }

const char* kv_role(WorkerMode m) {
  return m == WorkerMode::prefill ? "kv_producer" : "kv_consumer";
}

// Where a worker's ranks publish in relay mode and its kv-relay listens: one per worker and job.
// TCP on loopback, not ipc:// in /tmp: the relay runs on the host and the ranks in the worker's
// container, whose /tmp is private under pyxis/enroot (and docker), while both share the host's
// network (issue 22, item 2).
std::string kv_relay_ingress(const Process& relay) { return "tcp://127.0.0.1:" + std::to_string(relay.ports.kv_ingress.front()); }

}  // namespace

WorkerShape worker_shape(const Json& config, int gpus) {
  WorkerShape s;
  s.tp = gpus;  // srtctl passes -tp <GPUs in the process>; the recipe may not set it
  s.dp = int_flag(config, {"dp", "data-parallel-size"}, 1);
  s.pp = int_flag(config, {"pp", "pipeline-parallel-size"}, 1);
  s.dp_attention = flag_enabled(config, {"enable-dp-attention"});
  if (s.dp < 1) s.dp = 1;
  if (s.pp < 1) s.pp = 1;
  return s;
}

WorkerContext::WorkerContext(const Recipe& r, const Profile& p, std::uint64_t job, KvMode kv)
    : recipe(r), profile(p), job_id(job), kv_mode(kv) {
  const std::string model = model_argument(r, p);
  const std::string served = served_model_name(r, p);
  for (WorkerMode m : {WorkerMode::prefill, WorkerMode::decode, WorkerMode::agg}) {
    const Json& config = r.backend.config(m);
    const WorkerShape s = worker_shape(config, 1);
    ModeParts& mp = parts[int(m)];
    mp.dp = s.dp;
    mp.pp = s.pp;
    mp.dp_attention = s.dp_attention;
    mp.flags = engine_flags(config);
    mp.model = model;
    mp.served = served;
  }
}

void set_env(EnvList& env, const std::string& name, const std::string& value) {
  for (auto& kv : env)
    if (kv.first == name) { kv.second = value; return; }
  env.emplace_back(name, value);
}

std::string substitute_node(const std::string& value, const std::string& node, int node_index) {
  std::string out;
  for (std::size_t i = 0; i < value.size();) {
    if (value.compare(i, 6, "{node}") == 0) { out += node; i += 6; }
    else if (value.compare(i, 9, "{node_id}") == 0) { out += std::to_string(node_index); i += 9; }
    else out += value[i++];
  }
  return out;
}

std::string model_argument(const Recipe& r, const Profile& p) {
  const std::string& path = r.model.path;
  if (path.rfind("hf:", 0) == 0) return path.substr(3);
  auto alias = p.model_paths.find(path);
  if (alias != p.model_paths.end()) return alias->second;
  return path;
}

std::string served_model_name(const Recipe& r, const Profile& p) {
  if (r.model.path.rfind("hf:", 0) == 0) return "";  // the HF id already is the served name
  if (!r.identity.model_repo.empty()) return r.identity.model_repo;
  std::string local = model_argument(r, p);
  while (local.size() > 1 && local.back() == '/') local.pop_back();
  const auto slash = local.rfind('/');
  return slash == std::string::npos ? local : local.substr(slash + 1);
}

Process make_atom_worker(const WorkerContext& ctx, const Endpoint& e, const PlanNode& node, NodePorts& ports,
                         const Process* relay) {
  const Recipe& r = ctx.recipe;
  const ModeParts& parts = ctx.of(e.mode);
  const WorkerShape shape = parts.shape(int(e.gpus.size()));
  const bool pd = e.mode != WorkerMode::agg;
  const std::string mode = to_string(e.mode);
  const std::string name = mode + ":" + std::to_string(e.index);

  Process w;
  w.name = name;
  w.role = worker_role(e.mode);
  w.index = e.index;
  w.node_index = node.index;
  w.node = node.name;
  w.step_name = mode + "_" + std::to_string(e.index);
  w.gpus = e.gpus;
  w.ranks = shape.world();
  w.dp_ranks = shape.dp_attention ? shape.tp * shape.dp : shape.dp;
  w.log_file = node.name + "_" + mode + "_w" + std::to_string(e.index) + ".out";

  const int http = ports.one(name + " http");
  const int engine = ports.one(name + " engine --port");
  w.ports.http = {http};
  w.ports.engine = {engine};
  const bool multi_rank_dp = shape.engine_cores() > 1 && (shape.dp_attention || shape.dp > 1);
  if (multi_rank_dp) {
    w.ports.dp_master = {ports.one(name + " ATOM_DP_MASTER_PORT")};
    w.ports.dp_base = {ports.one(name + " ATOM_DP_BASE_PORT")};
  }
  if (pd) w.ports.handshake = ports.block(shape.world(), name + " Mooncake handshake block");
  if (ctx.kv_mode == KvMode::offset)
    w.ports.kv_events = ports.block(shape.engine_cores(), name + " KV-event block");
  w.readiness = {"http", http, "/health"};

  // argv: the profile's engine command (the lab runs a stand-in), then srtctl's order.
  w.argv = ctx.profile.engine_command;
  w.argv.insert(w.argv.end(), {"--model", parts.model});
  if (!parts.served.empty()) w.argv.insert(w.argv.end(), {"--served-model-name", parts.served});
  w.argv.insert(w.argv.end(), {"--host", "0.0.0.0", "--server-port", std::to_string(http), "--port",
                               std::to_string(engine), "-tp", std::to_string(shape.tp)});
  if (pd) {
    Json kv = Json::object();
    kv["kv_role"] = kv_role(e.mode);
    kv["kv_connector"] = r.backend.connector.empty() ? "mooncake" : r.backend.connector;
    kv["handshake_port"] = w.ports.handshake.front();
    if (!r.backend.mooncake_protocol.empty()) kv["protocol"] = r.backend.mooncake_protocol;
    kv["http_port"] = http;  // only informational in ATOM; keep it true
    w.argv.insert(w.argv.end(), {"--kv-transfer-config", kv.dump()});
  }
  w.argv.insert(w.argv.end(), parts.flags.begin(), parts.flags.end());

  // Environment, in srtctl's merge order (reference 2.5): role env, global env, then ours.
  for (const auto& [k, v] : r.backend.environment(e.mode))
    set_env(w.env, k, substitute_node(v, node.name, node.index));
  for (const auto& [k, v] : r.environment) set_env(w.env, k, substitute_node(v, node.name, node.index));
  const int gpn = plan_detail::gpus_per_node(r, ctx.profile);
  if (int(e.gpus.size()) < gpn) set_env(w.env, ctx.profile.visible_devices_env, join(e.gpus));
  set_env(w.env, "ATOM_HOST_IP", node.address);
  if (multi_rank_dp) {
    set_env(w.env, "ATOM_DP_MASTER_IP", "127.0.0.1");
    set_env(w.env, "ATOM_DP_MASTER_PORT", std::to_string(w.ports.dp_master.front()));
    set_env(w.env, "ATOM_DP_BASE_PORT", std::to_string(w.ports.dp_base.front()));
  }
  if (pd && r.backend.mooncake_over_rdma() && ctx.profile.mooncake_gid_index >= 0) {
    // ATOM's GID helper reads MC_IB_GID_INDEX, Mooncake itself MC_GID_INDEX: set both.
    set_env(w.env, "MC_GID_INDEX", std::to_string(ctx.profile.mooncake_gid_index));
    set_env(w.env, "MC_IB_GID_INDEX", std::to_string(ctx.profile.mooncake_gid_index));
  }
  if (ctx.kv_mode == KvMode::offset) {
    set_env(w.env, "ATOM_KV_EVENTS_ENABLE", "1");
    set_env(w.env, "ATOM_KV_EVENTS_PUBLISHER", "zmq");
    // `*` makes vLLM/SGLang-style publishers bind; ranks add their DP rank to the port.
    set_env(w.env, "ATOM_KV_EVENTS_ENDPOINT", "tcp://*:" + std::to_string(w.ports.kv_events.front()));
  } else if (ctx.kv_mode == KvMode::relay) {
    if (!relay) fail("internal: a relay-mode worker planned without its kv-relay");
    set_env(w.env, "ATOM_KV_EVENTS_ENABLE", "1");
    set_env(w.env, "ATOM_KV_EVENTS_PUBLISHER", "zmq");
    // ATOM's own publisher always binds its endpoint, in every rank: a fixed one (the ingress
    // above all) is taken by the first rank and the others die; a wildcard port gives each rank
    // a kernel-chosen loopback port nobody reads. Infera's hook connects every rank to the relay.
    set_env(w.env, "ATOM_KV_EVENTS_ENDPOINT", "tcp://127.0.0.1:*");
    set_env(w.env, "INFERA_ATOM_KV_EVENTS_ENDPOINT", kv_relay_ingress(*relay));
    set_env(w.env, "INFERA_ATOM_KV_EVENTS_CONNECT", "1");
  }
  set_env(w.env, "SRT_STEP", name);
  set_env(w.env, "SRT_WORKER_ROLE", mode);
  set_env(w.env, "SRT_WORKER_INDEX", std::to_string(e.index));
  set_env(w.env, "SRT_HTTP_PORT", std::to_string(http));
  // In that mode ATOM's openai_server treats --port as the HTTP port (reference atom notes 1).
  w.unset_env = {"USE_ATOMESH_ENTRYPOINTS"};
  return w;
}

Process make_kv_relay(const Endpoint& e, const PlanNode& node, NodePorts& ports) {
  const std::string mode = to_string(e.mode), name = mode + ":" + std::to_string(e.index);
  const int ingress = ports.one(name + " kv-relay ingress");
  const int out = ports.one(name + " kv-relay");
  Process relay;
  relay.name = "kv-relay:" + name;
  relay.role = Role::kv_relay;
  relay.index = e.index;
  relay.node_index = node.index;
  relay.node = node.name;
  relay.step_name = "kv_relay_" + mode + "_" + std::to_string(e.index);
  relay.ports.kv_ingress = {ingress};
  relay.ports.kv_events = {out};
  relay.argv = {"srt-helper", "kv-relay", "--ingress", kv_relay_ingress(relay), "--bind",
                "tcp://" + relay_bind_host(node.address) + ":" + std::to_string(out)};
  relay.readiness = {"none", 0, ""};
  relay.log_file = node.name + "_kv_relay_" + mode + "_w" + std::to_string(e.index) + ".out";
  return relay;
}

}  // namespace srt::plan_detail

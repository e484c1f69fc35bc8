#include <string>

#include "adapters.hpp"
#include "flags.hpp"
#include "processes.hpp"
#include "srt/data_network.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"
#include "srt/limits.hpp"

namespace srt::plan_detail {

namespace {

// Where a kv-relay listens: the node's address, the one kv_event_endpoints advertise, so the
// relay is reachable there and not on every interface of the node (docs/security.md). libzmq binds only
// interface names and IP literals, so a node known only by its name keeps `*`.
std::string relay_bind_host(const std::string& address) { return is_ipv4_address(address) ? address : "*"; }

}  // namespace

Process worker_process(const Endpoint& e, const PlanNode& node, const char* adapter) {
  const std::string mode = to_string(e.mode);
  Process w;
  w.name = mode + ":" + std::to_string(e.index);
  w.role = worker_role(e.mode);
  w.index = e.index;
  w.node_index = node.index;
  w.node = node.name;
  w.step_name = mode + "_" + std::to_string(e.index);
  w.gpus = e.gpus;
  w.log_file = node.name + "_" + mode + "_w" + std::to_string(e.index) + ".out";
  w.adapter = adapter;
  return w;
}

std::string role_served_model_name(const Recipe& r) {
  for (const Json* c : {&r.backend.prefill_config, &r.backend.aggregated_config, &r.backend.decode_config})
    if (const Json* v = find_flag(*c, {"served-model-name"}); v && v->is_string() && !v->get<std::string>().empty())
      return v->get<std::string>();
  std::string path = r.model.path.rfind("hf:", 0) == 0 ? r.model.path.substr(3) : r.model.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void set_worker_identity_env(Process& w) {
  set_env(w.env, "SRT_STEP", w.name);
  set_env(w.env, "SRT_WORKER_ROLE", to_string(w.role));
  set_env(w.env, "SRT_WORKER_INDEX", std::to_string(w.index));
  set_env(w.env, "SRT_HTTP_PORT", std::to_string(w.ports.http.front()));
}

// TCP on loopback, not ipc:// in /tmp: the relay runs on the host and the ranks in the worker's
// container, whose /tmp is private under pyxis/enroot (and docker), while both share the host's
// network (docs/design.md "KV events").
std::string kv_relay_ingress(const Process& relay) { return "tcp://127.0.0.1:" + std::to_string(relay.ports.kv_ingress.front()); }

int rank_count(std::int64_t count, const std::string& who, const std::string& what) {
  if (count < 1 || count > kMaxEndpointRanks)
    fail(who + ": " + std::to_string(count) + " " + what + " (the product of its parallel sizes) is more than the " +
             std::to_string(kMaxEndpointRanks) + " an endpoint may run",
         "give the role's real parallel sizes");
  return int(count);
}

WorkerShape worker_shape(const Json& config, int gpus) {
  WorkerShape s;
  s.tp = gpus;  // srtctl passes -tp <GPUs in the process>; the recipe may not set it
  s.dp = parallel_size(config, {"dp", "data-parallel-size"}, "ATOM");
  s.pp = parallel_size(config, {"pp", "pipeline-parallel-size"}, "ATOM");
  s.dp_attention = flag_enabled(config, {"enable-dp-attention"});
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

namespace srt {

void set_env(EnvList& env, const std::string& name, const std::string& value) {
  for (auto& kv : env)
    if (kv.first == name) { kv.second = value; return; }
  env.emplace_back(name, value);
}

}  // namespace srt

#include "srt/plan.hpp"

#include <string>

#include "layout.hpp"
#include "ports.hpp"
#include "processes.hpp"
#include "srt/error.hpp"

namespace srt {

using namespace plan_detail;

const char* to_string(Role role) {
  switch (role) {
    case Role::prefill: return "prefill";
    case Role::decode: return "decode";
    case Role::agg: return "agg";
    case Role::router: return "router";
    case Role::benchmark: return "benchmark";
    case Role::kv_relay: return "kv-relay";
  }
  return "?";
}

const char* to_string(KvMode mode) {
  return mode == KvMode::off ? "off" : mode == KvMode::offset ? "offset" : "relay";
}

std::optional<Role> role_named(const std::string& name) {
  for (Role r : {Role::prefill, Role::decode, Role::agg, Role::router, Role::benchmark, Role::kv_relay})
    if (name == to_string(r)) return r;
  return std::nullopt;
}

Role worker_role(WorkerMode mode) {
  return mode == WorkerMode::prefill ? Role::prefill : mode == WorkerMode::decode ? Role::decode : Role::agg;
}

const Process* Plan::find(const std::string& name) const {
  for (const auto& p : processes)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<const Process*> Plan::on_node(int node_index) const {
  std::vector<const Process*> out;
  for (const auto& p : processes)
    if (p.node_index == node_index) out.push_back(&p);
  return out;
}

namespace plan_detail {

KvMode choose_kv_mode(const Recipe& r, const std::vector<Endpoint>& endpoints, const Profile& p,
                      const std::string& capability_in) {
  if (!r.backend.enable_kv_events) return KvMode::off;
  std::string capability = capability_in == "auto" || capability_in.empty() ? p.kv_events_capability
                                                                             : capability_in;
  int max_cores = 1;
  std::string widest;  // the worker with the most ranks, named in the error
  for (const auto& e : endpoints) {
    const WorkerShape s = worker_shape(r.backend.config(e.mode), int(e.gpus.size()));
    if (s.engine_cores() > max_cores) {
      max_cores = s.engine_cores();
      widest = std::string(to_string(e.mode)) + ":" + std::to_string(e.index);
    }
  }
  // Until preflight has looked at the image, assume the engine offsets by rank; launch re-plans
  // with what preflight found before any worker starts.
  if (capability == "auto" || capability.empty() || capability == "offset") return KvMode::offset;
  if (capability == "connect") return KvMode::relay;
  if (max_cores == 1) return KvMode::offset;  // one rank per worker: nothing can collide
  // Every EngineCore is a child of one server process with a copy of its config, so no
  // per-rank environment can fix this (reference atom-mooncake-kvevents.md 0.2, 5.2 B).
  const std::string image = !r.model.container.empty()          ? r.model.container
                            : !r.identity.container_image.empty() ? r.identity.container_image
                                                                  : "(no model.container given)";
  Diagnostic d;
  d.file = r.source.file;
  d.key_path = "backend.enable_kv_events";
  d.mark = r.source.mark_of(d.key_path);
  d.message = "KV events are on, but " + widest + " runs " + std::to_string(max_cores) +
              " DP ranks in one " + r.backend.type + " server and the engine in image " + image +
              " (kv_events_capability: " + capability + ") lacks both a per-rank KV-event port offset "
              "(ATOM PR #1316) and ranks that connect to a relay (Infera PR #121 hook); every rank "
              "after the first would bind the same ATOM_KV_EVENTS_ENDPOINT and die with 'Address "
              "already in use' after loading the model";
  d.hint = "set backend.enable_kv_events: false; or use an image whose ATOM offsets KV-event ports "
           "by rank (kv_events_capability: offset) or has Infera's connect hook (connect)";
  throw Error(d);
}

}  // namespace plan_detail

Plan make_plan(const Recipe& recipe, const Profile& profile, const PlanInputs& in) {
  if (in.nodes.empty()) fail("the job has no nodes", "pass --nodelist or run inside a Slurm job");
  if (recipe.backend.type != "atom")
    fail("backend.type '" + recipe.backend.type + "' can be validated but not planned yet",
         "srt-spank plans ATOM recipes; use srtctl for this one");
  Plan plan;
  plan.job_id = in.job_id;
  plan.demand_nodes = node_demand(recipe, profile);
  if (int(in.nodes.size()) < plan.demand_nodes)
    fail("the recipe needs " + std::to_string(plan.demand_nodes) + " nodes but the job has " +
             std::to_string(in.nodes.size()),
         "submit with -N " + std::to_string(plan.demand_nodes));

  const int n = int(in.nodes.size());
  for (int i = 0; i < n; ++i) {
    PlanNode node;
    node.index = i;
    node.name = in.nodes[std::size_t(i)];
    auto a = in.addresses.find(node.name);
    node.address = a != in.addresses.end() && !a->second.empty() ? a->second : node.name;
    plan.nodes.push_back(node);
  }
  const NodeRoles roles = assign_roles(recipe, n);
  const std::vector<Endpoint> endpoints = place_endpoints(recipe, profile, roles, n);
  const KvMode kv = choose_kv_mode(recipe, endpoints, profile, in.kv_events_capability);
  plan.kv_events_mode = kv;

  std::vector<NodePorts> ports;
  for (int i = 0; i < n; ++i) ports.emplace_back(profile, in.job_id, plan.nodes[std::size_t(i)].name);
  const bool has_router = recipe.frontend.type == "atomesh";
  // Exclusive nodes: the profile's fixed port, as srt-slurm's. Shared nodes: the first port of
  // the job's own slice on the head node, or two jobs sharing it would both want the profile's
  // (issue 23, finding 5); SRT_FRONTEND_PORT tells the benchmark which.
  int frontend_port = profile.frontend_port;
  if (has_router) {
    if (profile.node_sharing == NodeSharing::shared)
      frontend_port = ports[std::size_t(roles.head)].one("the public frontend port");
    else
      ports[std::size_t(roles.head)].claim(profile.frontend_port, "the public frontend port");
  }

  const WorkerContext ctx(recipe, profile, in.job_id, kv);
  std::vector<Process> relays;
  for (const auto& e : endpoints) {
    PlanNode& node = plan.nodes[std::size_t(e.node)];
    if (kv == KvMode::relay) relays.push_back(make_kv_relay(e, node, ports[std::size_t(e.node)]));
    plan.processes.push_back(
        make_atom_worker(ctx, e, node, ports[std::size_t(e.node)], kv == KvMode::relay ? &relays.back() : nullptr));
    node.roles.push_back(plan.processes.back().name);
  }
  std::vector<const Process*> workers;
  for (const auto& p : plan.processes) workers.push_back(&p);

  for (const auto& w : plan.processes) {
    const std::string& addr = plan.nodes[std::size_t(w.node_index)].address;
    if (kv == KvMode::offset)
      for (int port : w.ports.kv_events) plan.kv_event_endpoints.push_back("tcp://" + addr + ":" + std::to_string(port));
  }
  for (const auto& rl : relays)
    plan.kv_event_endpoints.push_back("tcp://" + plan.nodes[std::size_t(rl.node_index)].address + ":" +
                                      std::to_string(rl.ports.kv_events.front()));

  // The contract every task sees (DESIGN "The environment contract").
  const PlanNode& head = plan.nodes[std::size_t(roles.head)];
  EnvList& env = plan.job_env;
  env.emplace_back("SRT_RECIPE", in.recipe_path);
  env.emplace_back("SRT_HEAD_NODE", head.name);
  env.emplace_back("SRT_FRONTEND_HOST", head.address);
  env.emplace_back("SRT_FRONTEND_PORT", std::to_string(frontend_port));
  env.emplace_back("SRTCTL_FRONTEND_TYPE", recipe.frontend.type);
  for (Role role : {Role::prefill, Role::decode, Role::agg}) {
    std::string ips, endpoints_list;
    for (const auto& w : plan.processes) {
      if (w.role != role) continue;
      const std::string& addr = plan.nodes[std::size_t(w.node_index)].address;
      ips += (ips.empty() ? "" : ",") + addr;
      endpoints_list += (endpoints_list.empty() ? "" : ",") + addr + ":" + std::to_string(w.ports.http.front());
    }
    std::string upper = to_string(role);
    for (auto& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    env.emplace_back("SRT_" + upper + "_IPS", ips);
    env.emplace_back("SRT_" + upper + "_ENDPOINTS", endpoints_list);
  }
  if (kv != KvMode::off) {
    std::string eps;
    for (const auto& e : plan.kv_event_endpoints) eps += (eps.empty() ? "" : ",") + e;
    env.emplace_back("SRT_KV_EVENT_ENDPOINTS", eps);
  }

  if (has_router) {
    Process router = make_router(recipe, profile, head, frontend_port, ports[std::size_t(roles.head)], workers, plan.nodes);
    plan.nodes[std::size_t(roles.head)].roles.push_back("frontend");
    plan.processes.push_back(std::move(router));
  }
  for (auto& rl : relays) {
    plan.nodes[std::size_t(rl.node_index)].roles.push_back(rl.name);
    plan.processes.push_back(std::move(rl));
  }
  if (recipe.benchmark.type == "custom") {
    const PlanNode& bench = plan.nodes[std::size_t(roles.bench)];
    plan.processes.push_back(make_benchmark(recipe, bench, plan.job_env));
    plan.nodes[std::size_t(roles.bench)].roles.push_back("benchmark");
    if (reads_point_variable(recipe.benchmark)) plan.benchmark_points = recipe.benchmark.concurrencies;
  }

  for (auto& p : plan.processes) p.container = container_spec(recipe, profile, p, in.job_id);
  plan.digest = plan_digest(plan);
  return plan;
}

}  // namespace srt

#include "srt/plan.hpp"

#include "srt/host_setup.hpp"

#include <algorithm>
#include <string>

#include "adapters.hpp"
#include "layout.hpp"
#include "ports.hpp"
#include "processes.hpp"
#include "srt/error.hpp"
#include "srt/host_setup.hpp"

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
    case Role::gpu_exporter: return "gpu-exporter";
    case Role::service: return "service";
  }
  return "?";
}

const char* to_string(KvMode mode) {
  return mode == KvMode::off ? "off" : mode == KvMode::offset ? "offset" : "relay";
}

std::optional<Role> role_named(const std::string& name) {
  for (Role r : {Role::prefill, Role::decode, Role::agg, Role::router, Role::benchmark, Role::kv_relay, Role::gpu_exporter, Role::service})
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
  std::int64_t max_cores = 1;
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
  // per-rank environment can fix this (docs/design.md "How ATOM runs").
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

const Process* Plan::find(const std::string& name, int node_index) const {
  for (const auto& p : processes)
    if (p.name == name && p.node_index == node_index) return &p;
  return nullptr;
}

Plan make_plan(const Recipe& recipe, const Profile& profile, const PlanInputs& in) {
  if (in.nodes.empty()) fail("the job has no nodes", "pass --nodelist or run inside a Slurm job");
  const EngineAdapter& engine = engine_adapter(recipe.backend.type);
  const FrontendAdapter& frontend = frontend_adapter(recipe.frontend.type);
  if (!frontend.fronts(engine))
    fail("frontend.type '" + recipe.frontend.type + "' cannot front backend.type '" + recipe.backend.type + "'",
         "pick the router of that engine");
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
  const bool has_router = frontend.runs_process();
  const bool worker_is_frontend = frontend.worker_binds_public_port();
  // Exclusive nodes: the profile's fixed port, as srt-slurm's. Shared nodes: the first port of
  // the job's own slice on the head node, or two jobs sharing it would both want the profile's
  // (docs/design.md "Ports"); SRT_FRONTEND_PORT tells the benchmark which. Direct: the aggregated
  // worker binds it on its own node.
  int frontend_port = profile.frontend_port;
  const int frontend_node = worker_is_frontend && !endpoints.empty() ? endpoints.front().node : roles.head;
  if (has_router || worker_is_frontend) {
    if (profile.node_sharing == NodeSharing::shared)
      frontend_port = ports[std::size_t(frontend_node)].one("the public frontend port");
    else
      ports[std::size_t(frontend_node)].claim(profile.frontend_port, "the public frontend port");
  }

  // Before any worker's ports: a service's fixed readiness port is claimed first, so the
  // allocator goes around it.
  std::vector<Process> services = make_services(recipe, roles, endpoints, plan.nodes, ports);
  const WorkerContext ctx(recipe, profile, in.job_id, kv);
  std::vector<Process> relays;
  for (const auto& e : endpoints) {
    EndpointSite site{e, {}, {}, worker_is_frontend ? frontend_port : 0, nullptr};
    for (int node : e.nodes) {
      site.nodes.push_back(&plan.nodes[std::size_t(node)]);
      site.ports.push_back(&ports[std::size_t(node)]);
    }
    if (kv == KvMode::relay) {
      relays.push_back(make_kv_relay(e, *site.nodes.front(), *site.ports.front()));
      site.relay = &relays.back();
    }
    for (Process& w : engine.workers(ctx, site)) {
      plan.nodes[std::size_t(w.node_index)].roles.push_back(w.name);
      plan.processes.push_back(std::move(w));
    }
  }
  // The frontend fronts each worker's leader; a follower node serves no requests.
  std::vector<const Process*> workers;
  for (const auto& p : plan.processes)
    if (plan.find(p.name) == &p) workers.push_back(&p);

  for (const auto& w : plan.processes) {
    const std::string& addr = plan.nodes[std::size_t(w.node_index)].address;
    if (kv == KvMode::offset)
      for (int port : w.ports.kv_events) plan.kv_event_endpoints.push_back("tcp://" + addr + ":" + std::to_string(port));
  }
  for (const auto& rl : relays)
    plan.kv_event_endpoints.push_back("tcp://" + plan.nodes[std::size_t(rl.node_index)].address + ":" +
                                      std::to_string(rl.ports.kv_events.front()));

  plan.job_env = job_environment(plan, recipe, in.recipe_path, plan.nodes[std::size_t(roles.head)],
                                 plan.nodes[std::size_t(frontend_node)], frontend_port);

  if (has_router) {
    const FrontendSite site{recipe, profile, plan.nodes[std::size_t(roles.head)], frontend_port,
                            ports[std::size_t(roles.head)], workers, plan.nodes};
    Process router = frontend.process(site);
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

  for (auto& sv : services) {
    sv.env = plan.job_env;
    for (const auto& [k, v] : recipe.services[std::size_t(sv.index)].env) set_env(sv.env, k, v);
    plan.nodes[std::size_t(sv.node_index)].roles.push_back(sv.name);
    plan.processes.push_back(std::move(sv));
  }

  // A node where a worker runs (telemetry's exporters and host_setup's `nodes: workers` go there).
  const auto has_worker = [&plan](int node_index) {
    return std::any_of(plan.processes.begin(), plan.processes.end(),
                       [node_index](const Process& p) { return p.is_worker() && p.node_index == node_index; });
  };
  if (std::optional<TelemetryPlan> t = telemetry_plan(recipe, profile)) {
    for (auto& node : plan.nodes) {
      if (!has_worker(node.index)) continue;
      plan.processes.push_back(make_gpu_exporter(*t, node, ports[std::size_t(node.index)], profile));
      node.roles.push_back(plan.processes.back().name);
    }
    plan.telemetry = std::move(t);
  }
  for (auto& p : plan.processes) {
    p.container = container_spec(recipe, profile, p, in.job_id);
    p.setup_script = setup_script_path(recipe, profile, p);
  }
  if (const HostSetup& hs = effective_host_setup(recipe, profile); hs.enabled()) {
    HostSetupPlan h;
    for (const auto& node : plan.nodes) {
      if (hs.nodes == "workers" ? has_worker(node.index) : !node.roles.empty()) h.nodes.push_back(node.name);
    }
    h.script = host_setup_script(hs.commands);
    h.teardown = host_setup_script(hs.teardown);
    h.ignore_failure = hs.ignore_failure;
    h.timeout_seconds = hs.timeout_seconds;
    h.from = recipe.host_setup.given ? "recipe" : "profile";
    plan.host_setup = std::move(h);
  }
  plan.digest = plan_digest(plan);
  return plan;
}

}  // namespace srt

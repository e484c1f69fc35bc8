// Internal to core/plan: engines and frontends as adapters (docs/design.md "Engines and
// frontends"). make_plan is engine-neutral: it places endpoints, owns each node's port allocator
// and the environment contract; what a program does with a role, a node, GPUs and ports is one
// adapter per engine (atom.cpp, sglang.cpp, vllm.cpp) and per frontend (atomesh.cpp,
// sglang_router.cpp, vllm_router.cpp, direct.cpp), looked up by the recipe's names in
// registry.cpp. Adding an engine is one file behind EngineAdapter and one line in the registry.
#pragma once
#include <string>
#include <vector>

#include "layout.hpp"
#include "ports.hpp"
#include "srt/data_network.hpp"
#include "processes.hpp"
#include "srt/plan.hpp"

namespace srt::plan_detail {

// One endpoint (a worker: prefill_0, agg_1, ...) and where it runs.
struct EndpointSite {
  const Endpoint& endpoint;
  std::vector<const PlanNode*> nodes;  // node rank order; nodes[0] is the leader
  std::vector<NodePorts*> ports;       // each node's allocator, same order
  // The public port when the worker itself is the frontend (direct); 0: the adapter allocates.
  int public_port = 0;
  const Process* relay = nullptr;      // KV-event relay mode: the worker's kv-relay (made first)
};

class EngineAdapter {
 public:
  virtual ~EngineAdapter() = default;
  virtual const char* name() const = 0;  // the recipe's backend.type / engine
  // The endpoint's processes, one per node it spans, leader first: argv as srtctl renders it,
  // every port they and their children bind (from site.ports, hidden ones included), their
  // environment (role env, global env, then the engine's own: host IP, KV transfer, KV events),
  // readiness, and the address to bind (listen_host of the node: srt/data_network.hpp).
  virtual std::vector<Process> workers(const WorkerContext& ctx, const EndpointSite& site) const = 0;
  // On the worker's node, inside its step (srt/plan.hpp apply_binding): what the node's topology
  // adds to the planned environment: the address on the data network, NUMA and CPU placement,
  // the RDMA NICs paired with its GPUs for KV transfer. Only the environment reaches the engine
  // (the head node rendered argv without this node's NICs). Returns what the job's console should
  // say about the choice, one line each (empty: nothing worth a line).
  virtual std::vector<std::string> bind(Process& w, const WorkerBinding& b, const std::string& host_ip, const Profile& profile,
                    std::uint64_t job_id) const = 0;
  // The counter the stall watch sums on a worker's HTTP port (/metrics) when no router fronts it.
  virtual const char* progress_metric() const = 0;
  // Whether that counter moves as requests finish (the per-point audit compares it with the
  // benchmark's own count: srt/point_audit.hpp), or the engine refreshes it on its own clock.
  virtual bool progress_metric_is_live() const { return true; }
  // What teardown removes on a worker's node after the process group is gone (shell globs).
  virtual std::vector<std::string> teardown_sweep() const { return {}; }
  // Whether a prefill or decode worker moves KV bytes over RDMA (its step gets the profile's
  // rdma_mounts and unlimited memlock, srt-exec checks the devices, preflight the userspace):
  // ATOM's Mooncake unless mooncake_protocol says tcp.
  virtual bool kv_over_rdma(const Recipe& r) const { return r.backend.mooncake_over_rdma(); }
  // What the launcher's canary completion sent straight to worker `w` (no router, no peer) adds
  // to its body for the engine to serve it alone: nothing, unless the engine says otherwise.
  virtual Json canary_fields(const Process& /*w*/) const { return Json::object(); }
};

// What a frontend is given: the workers it fronts, the head node, the public port.
struct FrontendSite {
  const Recipe& recipe;
  const Profile& profile;
  const PlanNode& head;
  int public_port;
  NodePorts& ports;                           // the head node's allocator
  const std::vector<const Process*>& workers; // leaders only (followers serve no requests)
  const std::vector<PlanNode>& nodes;
  // Where the router's listeners bind: the head node's listen_host (srt/data_network.hpp).
  std::string bind_host() const { return listen_host(profile, head.address); }
};

class FrontendAdapter {
 public:
  virtual ~FrontendAdapter() = default;
  virtual const char* name() const = 0;  // the recipe's frontend.type
  // A router process of its own on the head node (false: the aggregated worker serves the
  // public port itself, and the benchmark talks to it directly).
  virtual bool runs_process() const = 0;
  // Direct: the one aggregated worker binds the public port itself (EndpointSite::public_port).
  virtual bool worker_binds_public_port() const { return false; }
  // The router: argv, its ports (public, metrics), environment, and its readiness gate.
  virtual Process process(const FrontendSite& site) const = 0;
  // The counter the stall watch sums on the router's metrics port.
  virtual const char* progress_metric() const = 0;
  // The router's counter of the requests it received, labelled by path (`path="/v1/completions"`),
  // which the per-point audit reads on its metrics port (srt/point_audit.hpp); "" for none.
  virtual const char* request_metric() const { return ""; }
  // Whether the engine may sit behind it (a router speaks to one engine's HTTP surface).
  virtual bool fronts(const EngineAdapter& engine) const = 0;
};

// The adapter for a recipe's names; an unknown name is an error naming what is known.
const EngineAdapter& engine_adapter(const std::string& name);
const FrontendAdapter& frontend_adapter(const std::string& type);
bool has_engine_adapter(const std::string& name);
bool has_frontend_adapter(const std::string& type);

// The adapters themselves (one file each).
const EngineAdapter& atom_engine();
const EngineAdapter& sglang_engine();
const EngineAdapter& vllm_engine();
const FrontendAdapter& atomesh_frontend();
const FrontendAdapter& sglang_router_frontend();
const FrontendAdapter& vllm_router_frontend();
const FrontendAdapter& direct_frontend(const std::string& type);  // atom, infera, sglang-direct, vllm

// Shared by the adapters: a worker process's identity on one node of its endpoint (name, role,
// index, node, step and log names, GPUs, the adapter that made it), the same for every engine.
Process worker_process(const Endpoint& e, const PlanNode& node, const char* adapter);
// ...and the identity it is told in its environment (docs/design.md "The environment contract"):
// SRT_STEP, SRT_WORKER_ROLE, SRT_WORKER_INDEX, SRT_HTTP_PORT (its first http port).
void set_worker_identity_env(Process& w);

// --served-model-name as srtctl's SGLang and vLLM backends pick it (get_served_model_name): the
// first role that names one (prefill, agg, decode), else the model path's last component.
std::string role_served_model_name(const Recipe& r);

// Shared by the adapters: the `http://ADDRESS:PORT` other nodes reach a worker at.
std::string worker_url(const Process& w, const std::vector<PlanNode>& nodes);

// Shared by the router adapters (router_process.cpp): the router on the head node, named
// `<head>_<log_tag>_0.out`, serving the public port, with a planned Prometheus port...
Process router_process(const FrontendSite& s, const char* adapter, const std::string& log_tag);
// ...and, after the adapter's own arguments, the tail they all share: frontend.args, the
// recipe's and the frontend's environment, and readiness when /workers lists every worker.
void finish_router(Process& router, const FrontendSite& s);
// A static router's workers: true for prefill and decode (--pd-disaggregation), false for
// aggregated ones (--worker-urls). Refuses a mix, and prefill without decode or the other way
// round; `router` names it in the message ("sglang-router").
bool static_router_disaggregated(const std::vector<const Process*>& workers, const std::string& router);

}  // namespace srt::plan_detail

// The Plan: one pure, deterministic function of (recipe, profile, node list, job id), computed the
// same by the submit-side check, every slurmstepd and srt-helper (docs/design.md "The Plan").
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "srt/container_spec.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/topology.hpp"

namespace srt {

struct PlanNode {
  int index = 0;
  std::string name;
  std::string address;                 // what other nodes use to reach it
  std::vector<std::string> roles;      // "prefill:0", "frontend", "benchmark"
};

struct Probe {
  Probe() = default;
  Probe(std::string k, int p, std::string pa) : kind(std::move(k)), port(p), path(std::move(pa)) {}
  std::string kind;                    // "http" | "workers" | "none"; a service's also "tcp" | "log"
  int port = 0;
  std::string path;                    // "/health", "/workers"
  // A service's probe only (Role::service): what srtctl's ServiceReadinessConfig gives it.
  int status = 200;                    // http: the status that counts as ready
  std::string pattern;                 // log: searched for in the step's log
  int timeout_seconds = 0;             // per node; 0: the job's health budget
  int interval_seconds = 0;
};

// What a process is. Strings appear only at the edges (plan.json, step names, messages).
// service: one node's instance of a recipe's generic service (Recipe::services).
enum class Role { prefill, decode, agg, router, benchmark, kv_relay, gpu_exporter, service };
const char* to_string(Role role);  // "prefill", ..., "kv-relay", "gpu-exporter", "service"
Role worker_role(WorkerMode mode);
// A role's name as plan.json, probe answers and command lines spell it; nullopt: no role.
std::optional<Role> role_named(const std::string& name);
// An engine worker (prefill, decode, agg), as against router, benchmark and kv-relay.
inline bool is_worker(Role role) { return role == Role::prefill || role == Role::decode || role == Role::agg; }
inline bool names_worker(const std::string& name) {
  const std::optional<Role> r = role_named(name);
  return r && is_worker(*r);
}

// The benchmark command's concurrency points, space-separated: the whole grid in the planned
// step, one point in each of the launcher's per-point steps.
inline constexpr const char* kBenchmarkPointsVariable = "SRT_BENCHMARK_CONCURRENCIES";

// Every port a process binds, by what it is for. Names appear only where the Plan is shown
// (plan.json, port-check words, `srt-helper plan`), through each().
struct ProcessPorts {
  std::vector<int> bootstrap;  // SGLang --disaggregation-bootstrap-port (prefill)
  // Ports a program derives from another it is given and binds without being told: SGLang's DP
  // attention block (--port+13, --port+233..239; or dist-init+1..6, +13)
  std::vector<int> derived;
  std::vector<int> dist_init;  // SGLang --dist-init-addr port (a multi-node worker's leader)
  std::vector<int> dp_base;    // ATOM_DP_BASE_PORT (DP ranks' rendezvous)
  std::vector<int> dp_master;  // ATOM_DP_MASTER_PORT
  std::vector<int> engine;     // ATOM --port
  std::vector<int> handshake;  // Mooncake handshake block, pp x dp x tp wide
  std::vector<int> http;       // the engine's --server-port; the router's public port
  std::vector<int> kv_events;  // a worker's per-rank KV-event block (offset), a kv-relay's output
  std::vector<int> kv_ingress; // a kv-relay's loopback ingress, which its worker's ranks connect to
  std::vector<int> metrics;    // the router's --prometheus-port
  std::vector<int> nccl;       // SGLang --nccl-port (torch TCPStore)
  std::vector<int> scan;       // vLLM's VLLM_PORT: the range its get_open_port() scans from the first
  std::vector<int> service;    // a service's readiness port (services[].readiness)

  // f(name, ports) for each kind the process binds, in name order.
  template <typename F>
  void each(F&& f) const {
    const std::pair<const char*, const std::vector<int>*> kinds[] = {
        {"bootstrap", &bootstrap}, {"derived", &derived}, {"dist_init", &dist_init}, {"dp_base", &dp_base}, {"dp_master", &dp_master}, {"engine", &engine}, {"handshake", &handshake},
        {"http", &http}, {"kv_events", &kv_events}, {"kv_ingress", &kv_ingress}, {"metrics", &metrics},
        {"nccl", &nccl}, {"scan", &scan}, {"service", &service}};
    for (const auto& [name, ports] : kinds)
      if (!ports->empty()) f(name, *ports);
  }
  std::size_t kinds() const {
    std::size_t n = 0;
    each([&n](const char*, const std::vector<int>&) { ++n; });
    return n;
  }
  bool operator==(const ProcessPorts& o) const {
    return bootstrap == o.bootstrap && derived == o.derived && dist_init == o.dist_init && nccl == o.nccl &&
           dp_base == o.dp_base && dp_master == o.dp_master && engine == o.engine && handshake == o.handshake &&
           http == o.http && kv_events == o.kv_events && kv_ingress == o.kv_ingress && metrics == o.metrics &&
           scan == o.scan && service == o.service;
  }
  bool operator!=(const ProcessPorts& o) const { return !(*this == o); }
};

// NAME=value in place when `env` has NAME (the order it is set in stays), else at the end.
void set_env(EnvList& env, const std::string& name, const std::string& value);

struct Process {
  bool is_worker() const { return srt::is_worker(role); }

  std::string name;                    // "prefill:0", "decode:0", "agg:0", "router", "benchmark", "service:NAME:K"
  Role role = Role::prefill;
  int index = 0;                       // a service's: its place in Recipe::services
  int node_index = 0;
  std::string node;
  std::string step_name;               // Slurm step name: prefill_0, router, benchmark
  std::vector<int> gpus;               // node-local GPU indices (workers only)
  int ranks = 1;                       // GPU ranks in the process (tp x dp x pp)
  // The engine's DP ranks, as its /server_info dp_size says and AToMesh --dp-aware expands it
  // (one router worker "URL@r" per rank): tp x dp under DP attention (each TP rank serves as a
  // DP rank), else dp. A completion with "data_parallel_rank": r goes to rank r.
  int dp_ranks = 1;
  std::vector<std::string> argv;
  EnvList env;                         // set, in this order
  std::vector<std::string> unset_env;  // removed from the inherited environment
  ProcessPorts ports;
  Probe readiness;
  std::string log_file;                // file name in the job's log directory
  bool critical = true;
  // The engine picks its GPUs by physical index on its command line (vLLM's --device-ids), so its
  // step must not narrow the GPU visibility variable: under one, vLLM reads the indices as
  // positions in it (vllm/engine/arg_utils.py, device_ids).
  bool gpus_in_argv = false;
  ContainerSpec container;             // what the step runs in, whatever the runtime
  // The recipe's setup_script as this step sees it (/configs/NAME in a container, the profile's
  // setup_scripts_dir/NAME on the host): run by bash before argv, which does not start when it
  // fails (jobstep/launch/steps.cpp). "" = none; workers and the router only, as srtctl runs it.
  std::string setup_script;
  // The engine or frontend adapter that made it ("atom", "sglang", "atomesh", "sglang-router";
  // "" for the benchmark and kv-relays): what the stall watch reads and teardown sweeps
  // (srt/engines.hpp).
  std::string adapter;
};

// How KV events leave the engines (docs/design.md "KV events"): not at all, each rank on its own port
// (offset), or every rank into its worker's kv-relay (relay).
enum class KvMode { off, offset, relay };
const char* to_string(KvMode mode);  // "off", "offset", "relay"

// The job's host_setup (srt/host_setup.hpp), as the launcher runs it: one `bash -c SCRIPT` step
// per node, on the host, all nodes at once, before any other step; TEARDOWN the same way after
// the workers stop, on every path once setup was reached.
struct HostSetupPlan {
  std::vector<std::string> nodes;  // Plan order, head first: every node of the job, or the workers'
  std::string script;              // the commands joined with " && " ("" when only a teardown)
  std::string teardown;
  bool ignore_failure = false;
  int timeout_seconds = 300;
  std::string from;                // "recipe", or "profile" (its default_host_setup)
};

// The job's GPU power telemetry (srt/telemetry.hpp), as the launcher runs it: the exporter
// processes (Role::gpu_exporter, one per worker node) are in Plan::processes; this is how to
// scrape them and what to record.
struct TelemetryPlan {
  bool required = false;
  int collect_interval_ms = 1000;
  std::string storage_subdir = "power";  // under the job's log directory
  double startup_timeout_seconds = 30;
  double request_timeout_seconds = 2;
  GpuExporter exporter;                  // its image through the profile's containers aliases
  std::string from;                      // "recipe" (telemetry.dcgm_exporter) or "profile" (default_gpu_exporter)
};

struct Plan {
  std::uint64_t job_id = 0;
  int demand_nodes = 0;
  std::vector<PlanNode> nodes;
  std::vector<Process> processes;
  KvMode kv_events_mode = KvMode::off;
  std::vector<std::string> kv_event_endpoints;
  // The concurrency points the launcher runs as one benchmark step each (benchmark.concurrencies,
  // when the custom command reads SRT_BENCHMARK_CONCURRENCIES); empty: one step runs the sweep.
  std::vector<int> benchmark_points;
  EnvList job_env;                     // the contract's job-level variables, same on every node
  std::optional<HostSetupPlan> host_setup;  // none when neither the recipe nor the profile has one
  std::optional<TelemetryPlan> telemetry;   // none unless the recipe's telemetry is enabled
  std::string digest;                  // plan_digest() of everything above

  // The process of that name: a worker's leader (node rank 0) when it spans nodes.
  const Process* find(const std::string& name) const;
  // The process of that name on one node (a multi-node worker has one per node).
  const Process* find(const std::string& name, int node_index) const;
  std::vector<const Process*> on_node(int node_index) const;
};

struct PlanInputs {
  std::vector<std::string> nodes;                  // the job's hosts, Slurm order (already expanded)
  std::uint64_t job_id = 0;
  std::map<std::string, std::string> addresses;    // node -> address; missing: the node name
  std::string recipe_path;                         // SRT_RECIPE, as the user gave it
  std::string kv_events_capability = "auto";       // offset | connect | none | auto (= profile's)
};

// srtctl's node count for the recipe (1P1D -> 2, 2P1D -> 3).
int node_demand(const Recipe& recipe, const Profile& profile);

Plan make_plan(const Recipe& recipe, const Profile& profile, const PlanInputs& inputs);

// Per-node fill-in the pure Plan cannot know: the node's own address and its topology.
// job_id names the worker's Mooncake topology file, so two jobs on a node never share one.
// Returns the lines the job's console should show about the choice (the engine adapter's).
std::vector<std::string> apply_binding(Process& worker, const WorkerBinding& binding, const std::string& host_ip,
                                       const Profile& profile, std::uint64_t job_id);

Json plan_to_json(const Plan& plan);

// Whether plan_to_json and plan_digest show a process's adapter: not ATOM's nor AToMesh's, which
// every Plan before the adapters ran, so those Plans keep their digests and JSON.
inline bool adapter_shown(const Process& p) {
  return !p.adapter.empty() && p.adapter != "atom" && p.adapter != "atomesh";
}

// SHA-256 of the Plan's canonical encoding (every field plan_to_json shows, except the digest).
std::string plan_digest(const Plan& plan);

}  // namespace srt

// Internal to core/plan: the argv and environment of each kind of process.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "layout.hpp"
#include "ports.hpp"
#include "srt/plan.hpp"

namespace srt::plan_detail {

// How many processes/ranks an ATOM server starts (docs/design.md "How ATOM runs"): with
// --enable-dp-attention -tp T it runs T EngineCores (TP=1, DP=T); without, dp*pp EngineCores of
// tp ranks each. Mooncake's handshake block is pp*dp*tp wide (port_offset.py).
// Each size is at most kMaxParallelSize and tp at most kMaxEndpointGpus (srt/limits.hpp), so the
// products are taken in 64 bits; ranks() refuses a count beyond kMaxEndpointRanks, naming `who`.
struct WorkerShape {
  int tp = 1, dp = 1, pp = 1;
  bool dp_attention = false;
  std::int64_t world() const { return std::int64_t(tp) * dp * pp; }
  std::int64_t engine_cores() const { return dp_attention ? std::int64_t(tp) * dp : std::int64_t(dp) * pp; }
};
// `count` (a product of parallel sizes) as an int, or a clear error naming `who` and `what`.
int rank_count(std::int64_t count, const std::string& who, const std::string& what);
WorkerShape worker_shape(const Json& engine_config, int gpus);

KvMode choose_kv_mode(const Recipe& r, const std::vector<Endpoint>& endpoints, const Profile& p,
                      const std::string& capability);

std::string substitute_node(const std::string& value, const std::string& node, int node_index);

// What every worker of one mode shares (flags, model arguments, parallelism), worked out once:
// re-deriving it per worker was a fifth of make_plan's time at 1024 nodes.
struct ModeParts {
  int dp = 1, pp = 1;
  bool dp_attention = false;
  std::vector<std::string> flags;  // engine_flags() of the mode's config
  std::string model, served;       // --model, --served-model-name ("" = none)
  WorkerShape shape(int gpus) const { return {gpus, dp, pp, dp_attention}; }
};

struct WorkerContext {
  WorkerContext(const Recipe& r, const Profile& p, std::uint64_t job, KvMode kv);
  const Recipe& recipe;
  const Profile& profile;
  std::uint64_t job_id;
  KvMode kv_mode;
  ModeParts parts[3];  // indexed by WorkerMode
  const ModeParts& of(WorkerMode m) const { return parts[int(m)]; }
};

// Relay mode: the worker's kv-relay (role kv-relay), made just before the worker, whose ranks
// connect to its ingress: both of its ports come first from the node's allocator.
Process make_kv_relay(const Endpoint& e, const PlanNode& node, NodePorts& ports);
// The job's telemetry when the recipe enables it (throws when there is no exporter to run), and
// its exporter on one worker node, whose fixed port it claims there.
std::optional<TelemetryPlan> telemetry_plan(const Recipe& r, const Profile& p);
Process make_gpu_exporter(const TelemetryPlan& t, const PlanNode& node, NodePorts& ports, const Profile& profile);
// The recipe's generic services, one process per placed node (services.cpp), each readiness port
// claimed on its node: called before the workers' ports are handed out. Their environment is
// set once the job's is known (make_plan).
std::vector<Process> make_services(const Recipe& r, const NodeRoles& roles, const std::vector<Endpoint>& endpoints,
                                   const std::vector<PlanNode>& nodes, std::vector<NodePorts>& ports);
// Where a worker's ranks publish in relay mode and its kv-relay listens: one per worker and job.
std::string kv_relay_ingress(const Process& relay);

// The contract every task of the job sees (docs/design.md "The environment contract"): where the
// frontend is, every worker's leader by role, the KV-event endpoints. `frontend` is the node
// serving the public port (the router's, or the direct worker's). Reads the workers already in
// `plan`.
EnvList job_environment(const Plan& plan, const Recipe& recipe, const std::string& recipe_path, const PlanNode& head,
                        const PlanNode& frontend, int frontend_port);

Process make_benchmark(const Recipe& r, const PlanNode& bench, const EnvList& job_env);
// A custom benchmark command that reads kBenchmarkPointsVariable over a planned grid: the
// launcher runs it once per point (Plan::benchmark_points).
bool reads_point_variable(const Benchmark& b);

// `hf:org/repo` -> org/repo; a profile alias -> its path; otherwise as written.
std::string model_argument(const Recipe& r, const Profile& p);
std::string served_model_name(const Recipe& r, const Profile& p);

// The recipe's image for a role (frontend and benchmark may name their own), through the
// profile's `containers` aliases.
std::string image_of(const Recipe& r, const Profile& p, Role role);
// The process's container (srt/container_spec.hpp); job_id names its log directory.
ContainerSpec container_spec(const Recipe& r, const Profile& p, const Process& process, std::uint64_t job_id);
// Whether the recipe's setup_script runs before the process (workers and the router, as srtctl
// runs it), and its path as the step sees it (srt/plan.hpp Process::setup_script): "" = none.
// Throws srt::Error when the recipe names one and the profile no setup_scripts_dir.
bool runs_setup_script(const Process& process);
std::string setup_script_path(const Recipe& r, const Profile& p, const Process& process);

}  // namespace srt::plan_detail

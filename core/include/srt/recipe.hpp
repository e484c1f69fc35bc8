// The recipe: srt-slurm's v1 layout, as srtctl reads it (src/srtctl/core/schema.py). A 2.x
// `schema: 2` recipe is normalized into the same model (docs/design.md "Recipe formats").
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "srt/document.hpp"
#include "srt/restart_policy.hpp"
#include "srt/telemetry.hpp"

namespace srt {

using EnvList = std::vector<std::pair<std::string, std::string>>;  // in file order

enum class WorkerMode { prefill, decode, agg };
const char* to_string(WorkerMode m);

struct ModelSpec {
  std::string path;       // alias, absolute dir, or "hf:<org>/<repo>"
  std::string container;  // alias, .sqsh, or registry URI
  std::string precision;
  std::string stage_dir;
};

struct Identity {
  std::string model_repo;
  std::string model_revision;
  std::string container_image;
  std::vector<std::pair<std::string, std::string>> frameworks;  // name -> version or commit
};

struct SlurmSpec {
  std::string account;
  std::string partition;
  std::string time_limit;
};

struct Resources {
  std::string gpu_type;
  int gpus_per_node = 0;  // 0 = not given: the profile's, else srtctl's default of 4
  int prefill_nodes = 0, decode_nodes = 0, agg_nodes = 0;
  int prefill_workers = 0, decode_workers = 0, agg_workers = 0;
  int gpus_per_prefill = 0, gpus_per_decode = 0, gpus_per_agg = 0;  // 0 = derived
  bool spread_workers = false;
  bool decode_nodes_given = false;  // `decode_nodes: 0` (share prefill nodes) differs from absent

  bool disaggregated() const { return prefill_nodes > 0 || decode_nodes > 0 || decode_nodes_given; }
  // GPUs per worker as srtctl derives it (X_nodes * gpus_per_node // X_workers unless given;
  // decode_nodes: 0 inherits the prefill count). default_gpus_per_node: the profile's.
  int gpus_per_worker(WorkerMode m, int default_gpus_per_node) const;
};

struct Backend {
  std::string type;                    // atom | sglang | vllm | trtllm | mocker
  std::string connector;               // atom: mooncake only
  std::string mooncake_protocol;       // rdma | tcp | "" (ATOM's default: rdma)
  // Mooncake moves KV bytes over RDMA unless the recipe says tcp.
  bool mooncake_over_rdma() const { return mooncake_protocol.empty() || mooncake_protocol == "rdma"; }
  bool enable_kv_events = false;
  // vLLM: the visibility variable instead of --device-ids; the direct worker's binary ("" = vllm).
  bool set_visible_devices = false;
  std::string vllm_serve_binary;
  Json prefill_config = Json::object();     // <type>_config.prefill: engine flags as written
  Json decode_config = Json::object();
  Json aggregated_config = Json::object();
  EnvList prefill_environment, decode_environment, aggregated_environment;

  const Json& config(WorkerMode m) const;
  const EnvList& environment(WorkerMode m) const;
};

struct Frontend {
  std::string type = "dynamo";
  bool enable_multiple_frontends = true;
  int num_additional_frontends = 9;
  Json args = Json::object();          // rendered --key value, '_' -> '-'
  EnvList env;
  std::string container_image;
  bool dedicated_node = false;
};

struct Benchmark {
  std::string type = "manual";
  std::string command;                 // custom: run as `bash -lc <command>` verbatim
  EnvList env;
  std::vector<int> concurrencies;
  int isl = 0, osl = 0;
  std::string container_image;
  bool colocate_with_frontend = true;
  bool client_dedicated_node = false;
  bool stream_output = false;          // the client's output also in the job's console (srtctl v2.18)
};

// srtctl v2.18's post_eval (PostEvalConfig): the accuracy evaluation run after a benchmark that
// passed when the job's environment says RUN_EVAL=true, or instead of it with EVAL_ONLY=true.
struct PostEval {
  bool given = false;
  std::vector<std::string> command;          // argv, {endpoint} and {infmax_workspace} filled in; empty: srtctl's lm-eval runner
  std::vector<std::string> passthrough_env;  // names srtctl forwards from its environment into the eval
};

// srtctl's host_setup (cluster default_host_setup): shell commands run on the bare host of each
// node, outside any container, before the first worker, and `teardown` after the workers stop,
// on every path (NVIDIA/srt-slurm src/srtctl/cli/do_sweep.py _run_host_setup/_run_host_teardown).
struct HostSetup {
  bool given = false;                     // the block is written (an empty one opts out of the default)
  std::vector<std::string> commands;      // joined with " && " into one bash -c per node
  std::vector<std::string> teardown;
  std::string nodes = "all";              // all: head and workers; workers: the nodes with a worker
  bool ignore_failure = false;
  int timeout_seconds = 300;              // per node, for the commands and for the teardown
  bool enabled() const { return !commands.empty() || !teardown.empty(); }
};

// A generic service of schema 2's `services:` list (srtctl v2.18 ServiceConfig, type generic):
// a process of the user's, in its image, on the nodes its placement names, started before the
// workers or after the frontend, and waited for when it has a readiness probe
// (docs/running-recipes.md "Services"). The other kinds (etcd, nats, mooncake-master) become the
// v1 keys they were; the ones srt-spank cannot start are "cannot launch" keys.
struct ServiceProbe {
  std::string kind;                       // "tcp", "http", "log"; "" = none: running is ready
  int port = 0;                           // tcp, http
  std::string path = "/health";           // http
  int status = 200;                       // http: the status that counts as ready
  std::string pattern;                    // log: an ECMAScript regular expression, searched for
  int timeout_seconds = 120;              // per node
  int interval_seconds = 2;
};

struct Service {
  std::string name;                       // unique; its step and log file name (service_<name>.out)
  std::vector<std::string> argv;          // command, then args (not shell-interpreted)
  std::string container;                  // image or profile alias; "" = model.container
  EnvList env;
  std::string preamble;                   // bash run in the step before argv (exec'd after it)
  std::string node = "head";              // head, infra, prefill, decode, agg, workers, compute, all
  bool before_workers = false;            // start: before_workers; else after_frontend
  ServiceProbe readiness;
  bool critical = false;                  // its end fails the job, as a worker's
  int cpus_per_task = 0;                  // srun --cpus-per-task; 0 = not given
  std::string cpu_bind;                   // srun --cpu-bind
  EnvList srun_options;                   // over the recipe's, on this service's steps only
};

struct HealthCheck {
  int max_attempts = 180;
  int interval_seconds = 10;
};

// Schema 2's keys of roles.<role> that the v1 layout has no spelling for, by role ("prefill",
// "decode", "agg"); a role absent from a map has the recipe's own setting.
struct RoleOverrides {
  std::map<std::string, RestartPolicy> restart;  // enabled policies; absent: never relaunched (srtctl's default)
  std::map<std::string, std::string> container;  // the role's image or profile alias, for model.container
  std::map<std::string, EnvList> srun_options;   // merged over the recipe's srun_options on its worker steps
};

struct Recipe {
  Document source;                     // what it was read from: marks for later errors
  std::string name;
  ModelSpec model;
  Identity identity;
  SlurmSpec slurm;
  Resources resources;
  Backend backend;
  Frontend frontend;
  Benchmark benchmark;
  PostEval post_eval;
  HostSetup host_setup;
  Telemetry telemetry;                 // srtctl's telemetry: GPU power over each point
  std::optional<HealthCheck> health_check;  // unset: the profile's default, else srtctl's
  EnvList environment;
  EnvList srun_options;                // --key=value, or --key when the value is empty
  EnvList sbatch_directives;
  EnvList container_mounts;            // host -> container
  std::vector<std::string> extra_mount;
  std::string setup_script;
  std::string log_dir;
  bool infra_dedicated_node = false;   // infra.etcd_nats_dedicated_node
  RoleOverrides per_role;              // schema 2's per-role keys that v1 has no spelling for
  std::vector<Service> services;       // schema 2's generic services, in the file's order
  // Keys srtctl knows and this project cannot launch yet: accepted by validate/nodes/plan,
  // refused by launch, each with its key path ("sweep"), or "path=value" for a value
  // ("backend.type=sglang").
  std::vector<std::string> unsupported_keys;
};

struct RecipeOptions {
  ReadOptions read;
  std::vector<std::string> set;        // "key.path=VALUE" (VALUE parsed as YAML), srtctl's --set
  std::vector<std::string> unset;      // "key.path", srtctl's --unset
  // The profile's gpus_per_node, for the rules that need it when the recipe does not say
  // (workers x GPUs fit the nodes; ATOM endpoints fit one node). 0 = skip those rules.
  int default_gpus_per_node = 0;
};

// Schema check + typed model. Throws srt::Error with every problem found.
// Warnings (duplicate keys, ignored settings) are left in recipe.source.warnings.
// current_schema: refuse the v1 layout and v1-only keys (ReadOptions::current_schema).
Recipe recipe_from_document(Document doc, int default_gpus_per_node = 0, bool current_schema = false);
// A recipe's text (read by the caller: sys/ `load_recipe_file`), `name` in messages.
Recipe load_recipe_text(const std::string& text, const std::string& name, const RecipeOptions& opts = {});

// srtctl's --set/--unset on the raw tree, before the schema check.
void apply_overrides(Document& doc, const std::vector<std::string>& set, const std::vector<std::string>& unset);

// The JSON Schema of the recipe format (srt-helper schema): layout 1 (v1) or 2 (`schema: 2`).
Json recipe_json_schema(int layout = 1);
// The cluster profile's keys as JSON Schema (the same table `validate` and the plugin check).
Json profile_json_schema();

// The srun options of a step of `role` ("prefill", "decode", "agg", "router", ...): the recipe's,
// with the role's own (schema 2's roles.<role>.srun_options, srtctl v2.18: "merged over the recipe
// srun_options on this role's worker steps only") replacing an option of the same name in place,
// or added after them.
EnvList srun_options_of(const Recipe& r, const std::string& role);

}  // namespace srt

// The cluster profile: srtslurm.yaml's keys plus srt-spank's own (runtime, ports, sharing, results).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "srt/document.hpp"
#include "srt/recipe.hpp"

namespace srt {

enum class NodeSharing { exclusive, shared };
// bwrap: host exec inside a bubblewrap sandbox that applies the mounts (the lab's stand-in for pyxis).
// podman, docker: one `run` per step, named srt-<job>-<step> and labelled with the job, removed by
// the launcher's teardown and by the shipped epilog whatever way the step ended.
enum class ContainerRuntime { pyxis, none, bwrap, podman, docker };
const char* container_runtime_name(ContainerRuntime r);
// podman or docker: a `RUNTIME run` per step, containers the job's end must remove.
inline bool runs_per_step_containers(ContainerRuntime r) {
  return r == ContainerRuntime::podman || r == ContainerRuntime::docker;
}

// mooncake_gid_index: auto.
inline constexpr int kMooncakeGidAuto = -2;

struct Profile {
  Document source;
  std::string digest;                      // sha256 of the file's bytes ("" for the built-in default)

  // srtslurm.yaml
  std::string cluster;
  std::string default_account, default_partition;
  std::string default_time_limit = "01:00:00";
  int gpus_per_node = 8;
  std::string default_gpu_type;
  std::string network_interface;           // "" = resolve from the node name
  std::string gpu_sbatch_directive = "gres";  // gres | gpus-per-node | none
  bool use_exclusive_sbatch_directive = false;
  bool use_segment_sbatch_directive = false;
  std::string visible_devices_env = "ROCR_VISIBLE_DEVICES";
  EnvList default_sbatch_directives;
  EnvList default_mounts;                  // host -> container
  std::map<std::string, std::string> model_paths;   // alias -> path
  std::map<std::string, std::string> containers;    // alias -> image
  std::optional<HealthCheck> default_health_check;
  std::string output_dir;

  // srt-spank
  ContainerRuntime container_runtime = ContainerRuntime::pyxis;
  // podman/docker: the options before `run` (podman: --runtime runc, --root ...; docker: -H ...)
  // and extra options of every `run` (--ulimit nofile=..., --privileged, ...), in this order
  // after the ones the Plan decides.
  std::vector<std::string> container_runtime_args;
  std::vector<std::string> container_run_args;
  // podman/docker: whose uid the container runs as. image: the image's own user (root in most,
  // as InferenceX's legacy launcher ran); job: the job's user (--user UID:GID), as pyxis runs
  // it, so that the results and logs it writes are the user's.
  std::string container_user = "image";
  // docker: its daemon runs as root and whoever may reach its socket is root on the node
  // (https://docs.docker.com/engine/security/#docker-daemon-attack-surface). srt-spank refuses
  // a rootful docker unless the profile says in these words that the job users are trusted as
  // root (docs/security.md "Container runtimes").
  bool docker_users_are_root = false;
  // Host path prefixes a recipe's container_mounts and extra_mount may come from (a path
  // equal to one, or below it). Empty = the built-in rule: any path except the node's system
  // directories (srt/mount_policy.hpp). Devices come only from the profile (gpu_devices,
  // default_mounts, rdma_mounts), never from a recipe.
  std::vector<std::string> recipe_mount_prefixes;
  // The GPU device nodes every container gets (host -> container): pyxis binds them, podman and
  // docker pass --device, bwrap shows the host's whole /dev.
  EnvList gpu_devices = {{"/dev/kfd", "/dev/kfd"}, {"/dev/dri", "/dev/dri"}};
  // RDMA (mooncake_protocol rdma): host -> container mounts for the devices and the host's
  // verbs providers, which must match the NIC driver (the legacy launcher mounted them too).
  EnvList rdma_mounts = {{"/dev/infiniband", "/dev/infiniband"},
                         {"/etc/libibverbs.d", "/etc/libibverbs.d"},
                         {"/usr/lib/x86_64-linux-gnu/libibverbs", "/usr/lib/x86_64-linux-gnu/libibverbs"}};
  int port_range_begin = 20000;            // per-node allocator range, inclusive
  int port_range_end = 28999;
  NodeSharing node_sharing = NodeSharing::exclusive;
  int shared_job_slots = 8;                // shared: job_id % slots picks a slice of the range
  std::string results_root = "/results";
  int frontend_port = 8000;                // SRT_FRONTEND_PORT, as srt-slurm
  // RDMA: MC_GID_INDEX and MC_IB_GID_INDEX; -1 = unset; kMooncakeGidAuto (`auto`) = each worker's
  // node sets the RoCE v2 IPv4 GID index its paired NICs share.
  int mooncake_gid_index = -1;
  std::string kv_events_capability = "auto";  // auto (preflight) | offset | connect | none
  // What launch does when an image is not the recipe's `identity` (preflight): stop before any
  // worker loads a model, or warn and go on (fingerprints.json records it either way).
  std::string identity_mismatch = "stop";      // stop | warn
  // Where the job's listeners whose address the Plan sets bind (workers' HTTP, routers and their
  // Prometheus ports, kv-relays): data_network = the node's data-network address, so hosts off
  // that network cannot reach them (docs/security.md "Listeners"); any = every interface
  // (0.0.0.0, srtctl's choice), for benchmarks that reach the frontend at localhost.
  std::string listen_address = "data_network";  // data_network | any
  // Seconds a benchmark may go without a completed request (router and engines' counters) or a
  // new result file before launch cuts it and fails the job; 0 = never (srt-helper submit/run
  // --stall-timeout overrides it per job).
  int benchmark_stall_timeout = 1800;
  // Before any worker starts, launch checks through ROCm SMI that the workers' GPUs hold no
  // process and at most this much VRAM each (a clean MI355X shows a few hundred MiB in use);
  // -1 = no check.
  int gpu_idle_vram_mib = 1024;
  std::string topology_cache_dir = "/var/cache/srt";
  // Where a recipe's setup_script is looked up (srtctl's configs/, with configs/patches/ as its
  // fallback): mounted read-only at /configs in every worker's and router's container; "" = the
  // cluster runs no setup scripts.
  std::string setup_scripts_dir;
  DefaultGpuExporter default_gpu_exporter;  // srtctl's: a recipe's telemetry without an exporter runs it
  HostSetup default_host_setup;            // srtctl's default_host_setup: a recipe without host_setup runs it
  std::vector<std::string> engine_command = {"python3", "-m", "atom.entrypoints.openai_server"};
  std::vector<std::string> router_command = {"atomesh"};
  // SGLang's worker and router, as srtctl starts them (the lab runs stand-ins).
  std::vector<std::string> sglang_command = {"python3", "-m", "sglang.launch_server"};
  std::vector<std::string> sglang_router_command = {"python", "-m", "sglang_router.launch_router"};
  // `vllm serve` (a direct worker may name another binary: the recipe's engine.vllm_serve_binary
  // replaces the first word), and the vLLM Router's binary.
  std::vector<std::string> vllm_command = {"vllm", "serve"};
  std::vector<std::string> vllm_router_command = {"vllm-router"};
  std::map<std::string, std::string> node_addresses;  // fixed name -> address map (optional)
  // The data network (srt/data_network.hpp): the name each node is resolved by ({node} is the
  // node's name; "" = the name itself), and the IPv4 network every address must lie in ("" = any).
  std::string data_network_name_pattern;
  std::string data_network_cidr;

  // srtctl keys srt-spank accepts and does not use (srtctl_root, default_bash_preamble, ...),
  // "path" or "path=value"; validate prints them as notes.
  std::vector<std::string> ignored_keys;
};

Profile default_profile();

// Where the program is in a profile command (engine_command, vllm_command, ...): after a leading
// `env NAME=VALUE...` (the lab's `env PYTHONPATH=... python3 -m ...`), else 0; the command's size
// when it names no program.
std::size_t command_program_index(const std::vector<std::string>& command);
Profile profile_from_document(Document doc);
// A profile file's bytes (read by the caller: sys/ `load_profile_file`), `name` in messages; the
// digest is the bytes' sha256, the one the plugin and the launcher compare.
Profile load_profile_text(const std::string& bytes, const std::string& name, const ReadOptions& opts = {});

// The health check the launcher waits on and routers size their startup window from: the recipe's,
// else the profile's default_health_check, else srtctl's default (HealthCheck's initialisers).
HealthCheck effective_health_check(const Recipe& r, const Profile& p);

// Where the profile comes from: the explicit path, else $SRTSLURM_CONFIG's value (env_value),
// else `fallback` (/etc/srt/cluster.yaml) if it exists. "" when none applies (the built-in
// default). The caller reads the environment and the file system (helper::find_profile_path).
std::string choose_profile_path(const std::string& explicit_path, const std::string& env_value,
                                const std::string& fallback, bool fallback_exists);

}  // namespace srt

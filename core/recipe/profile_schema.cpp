// The cluster profile's keys: srtslurm.yaml's (srt-slurm's srtslurm.yaml.example and ClusterConfig)
// and srt-spank's own. Unknown keys are errors: srtctl only warned, and a typo then silently
// rendered --partition=default (NVIDIA/srt-slurm #429).
#include "schema.hpp"

namespace srt::schema {
namespace {

Field build_profile_schema() {
  return object(
      "",
      field_list(
          str("cluster", "cluster name"), str("default_account", "sbatch --account when the recipe has none"),
          str("default_partition", "sbatch --partition when the recipe has none"),
          make("default_time_limit", Kind::time_limit, "sbatch --time when the recipe has none"),
          integer("gpus_per_node", "GPUs per node").range(1, 64), str("default_gpu_type", "GPU type"),
          str("network_interface", "interface whose address workers advertise; empty = the node name's address"),
          boolean("use_gpus_per_node_directive", "#SBATCH --gpus-per-node (false: none)"),
          boolean("use_segment_sbatch_directive", "#SBATCH --segment"),
          boolean("use_exclusive_sbatch_directive", "#SBATCH --exclusive"), boolean("use_het_jobs", "heterogeneous jobs").tier2(),
          dict("default_sbatch_directives", "extra #SBATCH lines").nullable_values(),
          object("default_health_check",
                 field_list(integer("max_attempts", "polls").range(1), integer("interval_seconds", "seconds").range(1)),
                 "health budget when the recipe has none"),
          str("srtctl_root", "srtctl checkout").tier2(), str("output_dir", "srtctl's output base"),
          dict("model_paths", "model alias -> path"), dict("containers", "container alias -> image"),
          dict("default_mounts", "host -> container mounts for every container"),
          str("default_bash_preamble", "shell run before every worker").tier2(), host_setup_field("default_host_setup", "host_setup for recipes that write none"),
          any("reporting", "reporting").tier2(), any("telemetry", "telemetry").tier2(),
          dict("cloud", "free-form cloud settings (srtctl accepts and does not read them)").inert(),
          boolean("nginx_raise_ulimit", "nginx ulimit").tier2(), any("git_http_version", "git setting").tier2(),
          boolean("preflight", "srtctl's login-node preflight").tier2(),
          str("launcher", "how srtctl launches").one_of({"slurm", "local", "docker"}, {"local", "docker"}),
          any("docker_hosts", "docker launcher hosts").tier2(), any("docker_args", "docker launcher args").tier2(),
          str("accelerator_vendor", "AMD runtime branch: amd -> ROCR_VISIBLE_DEVICES").one_of({"nvidia", "amd"}),
          str("gpu_sbatch_directive", "AMD runtime branch: how GPUs are requested").one_of({"gpus-per-node", "gres", "none"}),
          str("runtime_config_transport", "srt-spank always embeds the recipe in the job")
              .one_of({"shared-filesystem", "embedded"})
              .inert(),
          str("visible_devices_env", "GPU mask variable (2.0 fork)"), gpu_exporter_field("default_gpu_exporter", "the GPU exporter of a recipe whose telemetry names none (null: none)"),
          str("container_runtime",
              "pyxis; podman or docker (one named container per step); none (host exec); bwrap "
              "(host exec in a bubblewrap sandbox with the mounts: the lab)")
              .one_of({"pyxis", "podman", "docker", "none", "bwrap"}),
          make("container_runtime_args", Kind::string_list, "podman/docker: options before `run` (e.g. --runtime, runc)"),
          make("container_run_args", Kind::string_list,
               "podman/docker: extra options of every `run` (e.g. --ulimit, "
               "nofile=65536:65536)"),
          dict("gpu_devices", "GPU device nodes, host -> container (default /dev/kfd and /dev/dri)"),
          str("container_user",
              "podman/docker: image (the image's user; root in most) or job (the job's uid and gid, "
              "as pyxis)")
              .one_of({"image", "job"}),
          boolean("docker_users_are_root",
                  "docker: the job users may be root on every node (a rootful docker daemon makes them so); "
                  "without it a rootful docker is refused"),
          make("recipe_mount_prefixes", Kind::string_list,
               "host path prefixes a recipe's container_mounts and extra_mount may come from (default: any "
               "path outside the system directories)"),
          dict("rdma_mounts", "RDMA: host -> container mounts for /dev/infiniband and the verbs providers"),
          integer("port_range_begin", "first port of the per-node allocator").range(1, 65535),
          integer("port_range_end", "last port of the per-node allocator").range(1, 65535),
          str("node_sharing", "exclusive nodes, or a per-job slice of the port range").one_of({"exclusive", "shared"}),
          integer("shared_job_slots", "shared: slices of the port range (job_id % slots)").range(1),
          str("results_root", "where results land"), integer("frontend_port", "SRT_FRONTEND_PORT").range(1, 65535),
          make("mooncake_gid_index", Kind::any,
               "RDMA GID index (MC_GID_INDEX, MC_IB_GID_INDEX): 0-255, -1 = unset, auto = the RoCE v2 IPv4 index "
               "each node finds on its paired NICs"),
          str("kv_events_capability", "what the image's ATOM can do for per-rank KV events")
              .one_of({"auto", "offset", "connect", "none"}),
          str("listen_address",
              "where the job's listeners bind: the node's data-network address, or every interface (0.0.0.0)")
              .one_of({"data_network", "any"}),
          str("identity_mismatch", "an image that is not the recipe's identity: stop the job before any worker starts, or warn")
              .one_of({"stop", "warn"}),
          integer("benchmark_stall_timeout",
                  "seconds without a completed request or new result before launch cuts the "
                  "benchmark (0: never)")
              .range(0, 7 * 24 * 3600),
          integer("gpu_idle_vram_mib",
                  "VRAM (MiB) a GPU may hold before the job's workers start; any process on "
                  "it stops the job (or is ended, if the user's earlier job left it); -1: no check")
              .range(-1, 1 << 24),
          str("topology_cache_dir", "per-node hwloc cache"),
          str("setup_scripts_dir",
              "directory of the setup scripts recipes name (srtctl's configs/, patches/ as fallback), mounted "
              "read-only at /configs in every worker's and router's container"),
          make("engine_command", Kind::string_list, "engine argv prefix (stand-ins in the lab)"),
          make("router_command", Kind::string_list, "router argv prefix"),
          make("sglang_command", Kind::string_list, "SGLang worker argv prefix (stand-ins in the lab)"),
          make("sglang_router_command", Kind::string_list, "sglang-router argv prefix"),
          make("vllm_command", Kind::string_list, "vLLM worker argv prefix (vllm serve)"),
          make("vllm_router_command", Kind::string_list, "vllm-router argv prefix"), dict("node_addresses", "node name -> address"),
          object("data_network",
                 field_list(str("name_pattern",
                                "the name each node is reached by on the data network; {node} is the node's name "
                                "(default: the node name itself)"),
                            str("cidr", "IPv4 network (A.B.C.D/N) every node's data address must lie in")),
                 "the network that carries KV bytes, router-to-worker and DP-master traffic")),
      "an srt-spank cluster profile (srtslurm.yaml keys plus srt-spank's)");
}

}  // namespace

const Field& profile_schema() {
  static const Field root = build_profile_schema();
  return root;
}

}  // namespace srt::schema

// Loading the cluster profile: the same schema machinery as recipes, plus the rules between
// srtslurm.yaml's two AMD generations (accelerator_vendor vs visible_devices_env) and ours.
#include "srt/profile.hpp"

#include <optional>

#include "schema.hpp"
#include "srt/data_network.hpp"
#include "srt/host_setup.hpp"
#include "srt/telemetry.hpp"

namespace srt {
namespace {

const Json* at(const Json& root, const char* key) {
  auto it = root.find(key);
  return it == root.end() || it->is_null() ? nullptr : &*it;
}

void set_text(const Json& root, const char* key, std::string& out) {
  if (const Json* v = at(root, key); v && v->is_string()) out = v->get<std::string>();
}

void set_int(const Json& root, const char* key, int& out) {
  if (const Json* v = at(root, key))
    if (auto n = schema::as_integer(*v)) out = static_cast<int>(*n);
}

// mooncake_gid_index: an index 0-255, -1 (unset) or "auto" (kMooncakeGidAuto); nullopt otherwise.
std::optional<int> gid_index_of(const Json& v) {
  if (v.is_string() && v.get<std::string>() == "auto") return kMooncakeGidAuto;
  if (const auto n = schema::as_integer(v); n && *n >= -1 && *n <= 255) return static_cast<int>(*n);
  return std::nullopt;
}

void set_bool(const Json& root, const char* key, bool& out) {
  if (const Json* v = at(root, key))
    if (auto b = schema::as_boolean(*v)) out = *b;
}

EnvList pairs(const Json* v) {
  EnvList out;
  if (v && v->is_object())
    for (auto it = v->begin(); it != v->end(); ++it)
      if (!it.value().is_structured()) out.emplace_back(it.key(), it.value().is_null() ? "" : python_str(it.value()));
  return out;
}

std::vector<std::string> list(const Json* v) {
  std::vector<std::string> out;
  if (v && v->is_array())
    for (const auto& x : *v) out.push_back(python_str(x));
  return out;
}

void rules(const Profile& p, const Json& root, schema::Issues& issues) {
  const Document& doc = p.source;
  auto error = [&](const std::string& path, std::string message, std::string hint = {}) {
    if (!issues.bad(path)) issues.error(doc.at(path, std::move(message), std::move(hint)));
  };
  if (const Json* gid = at(root, "mooncake_gid_index"); gid && !gid_index_of(*gid))
    error("mooncake_gid_index", "is " + gid->dump() + ": a GID index is 0-255, -1 (unset) or auto",
          "write the index show_gids lists as v2 with an IPv4 address, or auto to let each node find it");
  if (const Json* block = at(root, "default_gpu_exporter"); block && p.default_gpu_exporter.exporter)
    for (const auto& [key, message] : gpu_exporter_problems(*p.default_gpu_exporter.exporter, *block))
      error("default_gpu_exporter." + key, message,
            "see srtctl's docs/power-telemetry.md (kind: custom names its command, gpu_labels and gpu_metrics)");
  if (p.port_range_begin > p.port_range_end)
    error("port_range_begin", "is above port_range_end (" + std::to_string(p.port_range_begin) + " > " +
                                  std::to_string(p.port_range_end) + ")");
  // Mooncake's TCP transport opens an RPC and a data port per rank, chosen at random in
  // [MC_MIN_RPC_PORT, MC_MAX_RPC_PORT] = 15000-17000: a planned port there can be taken first by
  // any rank on the node (docs/design.md "Ports"). The allocator steps around it; a range that overlaps
  // it is a profile mistake, said once here rather than found as a bind failure.
  constexpr int kMooncakeRpcLow = 15000, kMooncakeRpcHigh = 17000;
  if (p.port_range_begin <= p.port_range_end && p.port_range_begin <= kMooncakeRpcHigh &&
      p.port_range_end >= kMooncakeRpcLow)
    error("port_range_begin", "port_range_begin-port_range_end (" + std::to_string(p.port_range_begin) + "-" +
                                  std::to_string(p.port_range_end) +
                                  ") overlaps Mooncake's transfer-engine ports 15000-17000 (MC_MIN_RPC_PORT-MC_MAX_RPC_PORT, "
                                  "taken at random by every rank)",
          "choose a range outside it, e.g. 20000-28999 (below the kernel's ephemeral range)");
  if (!p.setup_scripts_dir.empty() && p.setup_scripts_dir.front() != '/')
    error("setup_scripts_dir", "is not an absolute path", "name the directory from /");
  if (p.frontend_port >= p.port_range_begin && p.frontend_port <= p.port_range_end)
    error("frontend_port", "lies inside the allocator's port range " + std::to_string(p.port_range_begin) + "-" +
                               std::to_string(p.port_range_end), "move one of them");
  if (p.node_sharing == NodeSharing::shared && p.shared_job_slots > p.port_range_end - p.port_range_begin + 1)
    error("shared_job_slots", "is more than the ports in the range");
  if (const Json* vendor = at(root, "accelerator_vendor"); vendor && vendor->is_string() && at(root, "visible_devices_env")) {
    const std::string want = vendor->get<std::string>() == "amd" ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
    if (p.visible_devices_env != want)
      error("visible_devices_env", "contradicts accelerator_vendor: " + vendor->get<std::string>() + " (which means " + want + ")",
            "keep one of the two");
  }
  const Json* directive = at(root, "gpu_sbatch_directive");
  const Json* per_node = at(root, "use_gpus_per_node_directive");
  if (directive && per_node && directive->is_string() && schema::as_boolean(*per_node)) {
    const bool says_per_node = *schema::as_boolean(*per_node);
    if (says_per_node != (directive->get<std::string>() == "gpus-per-node"))
      error("use_gpus_per_node_directive", "contradicts gpu_sbatch_directive: " + directive->get<std::string>(),
            "keep gpu_sbatch_directive only");
  }
  if (!p.data_network_name_pattern.empty() && p.data_network_name_pattern.find("{node}") == std::string::npos)
    error("data_network.name_pattern", "'" + p.data_network_name_pattern + "' has no {node}: every node would get one address",
          "write the pattern of the nodes' data-network names, e.g. '{node}-data'");
  std::string why;
  if (!p.data_network_cidr.empty() && !parse_ipv4_network(p.data_network_cidr, &why))
    error("data_network.cidr", why, "write the data network as A.B.C.D/N, e.g. 10.20.0.0/16");
  if (at(root, "engine_command") && p.engine_command.empty()) error("engine_command", "is empty");
  if (at(root, "router_command") && p.router_command.empty()) error("router_command", "is empty");
  if (at(root, "sglang_command") && p.sglang_command.empty()) error("sglang_command", "is empty");
  if (at(root, "sglang_router_command") && p.sglang_router_command.empty()) error("sglang_router_command", "is empty");
  if (at(root, "vllm_command") && p.vllm_command.empty()) error("vllm_command", "is empty");
  if (at(root, "vllm_router_command") && p.vllm_router_command.empty()) error("vllm_router_command", "is empty");
}

}  // namespace

Profile default_profile() { return Profile{}; }

HealthCheck effective_health_check(const Recipe& r, const Profile& p) {
  return r.health_check ? *r.health_check : p.default_health_check ? *p.default_health_check : HealthCheck{};
}

std::size_t command_program_index(const std::vector<std::string>& command) {
  std::size_t i = 0;
  if (i < command.size() && command[i] == "env") {
    ++i;
    while (i < command.size() && command[i].find('=') != std::string::npos && command[i].front() != '=') ++i;
  }
  return i;
}

const char* container_runtime_name(ContainerRuntime r) {
  switch (r) {
    case ContainerRuntime::pyxis: return "pyxis";
    case ContainerRuntime::none: return "none";
    case ContainerRuntime::bwrap: return "bwrap";
    case ContainerRuntime::podman: return "podman";
    case ContainerRuntime::docker: return "docker";
  }
  return "pyxis";
}

Profile profile_from_document(Document doc) {
  Profile p;
  p.source = std::move(doc);
  const Json root = p.source.root.is_null() ? Json::object() : p.source.root;
  schema::Issues issues;
  schema::check(p.source, schema::profile_schema(), issues, p.ignored_keys);
  if (!root.is_object()) throw Error(std::move(issues.errors));

  set_text(root, "cluster", p.cluster);
  set_text(root, "default_account", p.default_account);
  set_text(root, "default_partition", p.default_partition);
  set_text(root, "default_time_limit", p.default_time_limit);
  set_int(root, "gpus_per_node", p.gpus_per_node);
  set_text(root, "default_gpu_type", p.default_gpu_type);
  set_text(root, "network_interface", p.network_interface);
  if (const Json* v = at(root, "use_gpus_per_node_directive"))
    if (auto b = schema::as_boolean(*v)) p.gpu_sbatch_directive = *b ? "gpus-per-node" : "none";
  set_text(root, "gpu_sbatch_directive", p.gpu_sbatch_directive);
  set_bool(root, "use_exclusive_sbatch_directive", p.use_exclusive_sbatch_directive);
  set_bool(root, "use_segment_sbatch_directive", p.use_segment_sbatch_directive);
  if (const Json* v = at(root, "accelerator_vendor"); v && v->is_string())
    p.visible_devices_env = v->get<std::string>() == "amd" ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
  set_text(root, "visible_devices_env", p.visible_devices_env);
  p.default_sbatch_directives = pairs(at(root, "default_sbatch_directives"));
  p.default_mounts = pairs(at(root, "default_mounts"));
  for (const auto& [k, v] : pairs(at(root, "model_paths"))) p.model_paths[k] = v;
  for (const auto& [k, v] : pairs(at(root, "containers"))) p.containers[k] = v;
  if (const Json* h = at(root, "default_health_check"); h && h->is_object()) {
    HealthCheck hc;
    set_int(*h, "max_attempts", hc.max_attempts);
    set_int(*h, "interval_seconds", hc.interval_seconds);
    p.default_health_check = hc;
  }
  set_text(root, "output_dir", p.output_dir);

  std::string text;
  set_text(root, "container_runtime", text);
  for (ContainerRuntime r : {ContainerRuntime::pyxis, ContainerRuntime::none, ContainerRuntime::bwrap,
                             ContainerRuntime::podman, ContainerRuntime::docker})
    if (text == container_runtime_name(r)) p.container_runtime = r;
  if (at(root, "container_runtime_args")) p.container_runtime_args = list(at(root, "container_runtime_args"));
  if (at(root, "container_run_args")) p.container_run_args = list(at(root, "container_run_args"));
  if (at(root, "gpu_devices")) p.gpu_devices = pairs(at(root, "gpu_devices"));
  set_text(root, "container_user", p.container_user);
  set_bool(root, "docker_users_are_root", p.docker_users_are_root);
  if (at(root, "recipe_mount_prefixes")) p.recipe_mount_prefixes = list(at(root, "recipe_mount_prefixes"));
  if (at(root, "rdma_mounts")) p.rdma_mounts = pairs(at(root, "rdma_mounts"));
  set_int(root, "port_range_begin", p.port_range_begin);
  set_int(root, "port_range_end", p.port_range_end);
  text.clear();
  set_text(root, "node_sharing", text);
  if (!text.empty()) p.node_sharing = text == "shared" ? NodeSharing::shared : NodeSharing::exclusive;
  set_int(root, "shared_job_slots", p.shared_job_slots);
  set_text(root, "results_root", p.results_root);
  set_int(root, "frontend_port", p.frontend_port);
  if (const Json* gid = at(root, "mooncake_gid_index")) p.mooncake_gid_index = gid_index_of(*gid).value_or(-1);
  set_text(root, "kv_events_capability", p.kv_events_capability);
  set_text(root, "identity_mismatch", p.identity_mismatch);
  set_text(root, "listen_address", p.listen_address);
  set_int(root, "benchmark_stall_timeout", p.benchmark_stall_timeout);
  set_int(root, "gpu_idle_vram_mib", p.gpu_idle_vram_mib);
  set_text(root, "topology_cache_dir", p.topology_cache_dir);
  set_text(root, "setup_scripts_dir", p.setup_scripts_dir);
  p.default_host_setup = read_host_setup(at(root, "default_host_setup"));
  p.default_gpu_exporter = read_default_gpu_exporter(&root);
  if (at(root, "engine_command")) p.engine_command = list(at(root, "engine_command"));
  if (at(root, "router_command")) p.router_command = list(at(root, "router_command"));
  if (at(root, "sglang_command")) p.sglang_command = list(at(root, "sglang_command"));
  if (at(root, "sglang_router_command")) p.sglang_router_command = list(at(root, "sglang_router_command"));
  if (at(root, "vllm_command")) p.vllm_command = list(at(root, "vllm_command"));
  if (at(root, "vllm_router_command")) p.vllm_router_command = list(at(root, "vllm_router_command"));
  for (const auto& [k, v] : pairs(at(root, "node_addresses"))) p.node_addresses[k] = v;
  if (const Json* d = at(root, "data_network"); d && d->is_object()) {
    set_text(*d, "name_pattern", p.data_network_name_pattern);
    set_text(*d, "cidr", p.data_network_cidr);
  }

  rules(p, root, issues);
  for (auto& w : issues.warnings) p.source.warnings.push_back(std::move(w));
  if (!issues.errors.empty()) throw Error(std::move(issues.errors));
  return p;
}

std::string choose_profile_path(const std::string& explicit_path, const std::string& env_value,
                                const std::string& fallback, bool fallback_exists) {
  if (!explicit_path.empty()) return explicit_path;
  if (!env_value.empty()) return env_value;
  if (!fallback.empty() && fallback_exists) return fallback;
  return {};
}

}  // namespace srt

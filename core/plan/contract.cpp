#include "srt/contract.hpp"
#include "srt/rdma_nic.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include "processes.hpp"
#include "srt/error.hpp"
#include "srt/join.hpp"

namespace srt {

namespace plan_detail {

EnvList job_environment(const Plan& plan, const Recipe& recipe, const std::string& recipe_path, const PlanNode& head,
                        const PlanNode& frontend, int frontend_port) {
  EnvList env;
  env.emplace_back("SRT_RECIPE", recipe_path);
  env.emplace_back("SRT_HEAD_NODE", head.name);
  env.emplace_back("SRT_FRONTEND_HOST", frontend.address);
  env.emplace_back("SRT_FRONTEND_PORT", std::to_string(frontend_port));
  // What srtctl exports is the recipe's word: schema 2's direct `sglang` is read as sglang-direct.
  env.emplace_back("SRTCTL_FRONTEND_TYPE", recipe.frontend.type == "sglang-direct" ? "sglang" : recipe.frontend.type);
  for (Role role : {Role::prefill, Role::decode, Role::agg}) {
    std::string ips, endpoints_list;
    for (const auto& w : plan.processes) {
      // A worker spanning nodes is reached at its leader; the followers serve no requests.
      if (w.role != role || plan.find(w.name) != &w) continue;
      const std::string& addr = plan.nodes[std::size_t(w.node_index)].address;
      ips += (ips.empty() ? "" : ",") + addr;
      endpoints_list += (endpoints_list.empty() ? "" : ",") + addr + ":" + std::to_string(w.ports.http.front());
    }
    std::string upper = to_string(role);
    for (auto& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    env.emplace_back("SRT_" + upper + "_IPS", ips);
    env.emplace_back("SRT_" + upper + "_ENDPOINTS", endpoints_list);
  }
  if (plan.kv_events_mode != KvMode::off) {
    std::string eps;
    for (const auto& e : plan.kv_event_endpoints) eps += (eps.empty() ? "" : ",") + e;
    env.emplace_back("SRT_KV_EVENT_ENDPOINTS", eps);
  }
  return env;
}

}  // namespace plan_detail

void check_step_name(const std::string& step) {
  const auto colon = step.find(':');
  const std::string role = step.substr(0, colon);
  const std::string index = colon == std::string::npos ? "" : step.substr(colon + 1);
  const bool digits = !index.empty() && index.size() < 6 &&
                      index.find_first_not_of("0123456789") == std::string::npos;
  if ((role != "prefill" && role != "decode" && role != "agg") || !digits)
    fail("--srt-step=" + step + " is not a worker name", "use ROLE:INDEX with ROLE prefill, decode or agg, e.g. --srt-step=prefill:0");
}

StepEnvironment step_environment(const Plan& plan, int node_index, const std::string& step) {
  if (node_index < 0 || node_index >= int(plan.nodes.size()))
    fail("node index " + std::to_string(node_index) + " is outside the job's " +
         std::to_string(plan.nodes.size()) + " nodes");
  const PlanNode& node = plan.nodes[std::size_t(node_index)];
  StepEnvironment out;
  out.job_id = plan.job_id;
  out.set = plan.job_env;
  std::string roles;
  for (const auto& r : node.roles) roles += (roles.empty() ? "" : ",") + r;
  out.set.emplace_back("SRT_PLAN_DIGEST", plan.digest);
  out.set.emplace_back("SRT_NODE_INDEX", std::to_string(node_index));
  out.set.emplace_back("SRT_NODE_ROLES", roles);
  if (step.empty()) return out;

  check_step_name(step);
  // A worker spanning nodes has a process of the same name on each: this node's is the step's.
  const Process* w = plan.find(step, node_index);
  if (!w) w = plan.find(step);
  if (!w) fail("--srt-step=" + step + ": the recipe has no such worker", "srt-helper plan RECIPE lists the workers");
  if (w->node_index != node_index)
    fail("--srt-step=" + step + " runs on " + w->node + " (node " + std::to_string(w->node_index) +
             ") but this step is on " + node.name + " (node " + std::to_string(node_index) + ")",
         "launch it with srun -N1 -w " + w->node);
  for (const auto& [k, v] : w->env) set_env(out.set, k, v);
  out.unset = w->unset_env;
  out.worker = w;
  return out;
}

namespace {

// "0,1,...,n-1" (or nothing): a visibility list under which position g is GPU g.
bool counts_from_zero(const std::string& list, const std::string& name) {
  const std::vector<int> gpus = parse_gpu_indices(list, name);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (gpus[i] != int(i)) return false;
  return true;
}

// A worker that names its GPUs by physical index (gpus_in_argv) keeps the step's visibility as
// Slurm set it. That is right only where the indices still mean the same GPUs: no GPU GRES, or
// one that leaves every GPU of the node visible in PCI order.
void check_argv_gpus(const Process& w, const NodeGrant& grant, const Profile& profile) {
  const std::string var = profile.visible_devices_env.empty() ? "the GPU visibility variable" : profile.visible_devices_env;
  if (counts_from_zero(grant.visible_devices, var) && counts_from_zero(grant.node_gpus, "SLURM_STEP_GPUS/SLURM_JOB_GPUS"))
    return;
  fail(w.name + " names its GPUs by physical index (--device-ids " + join(w.gpus) + "), but Slurm gave this step " +
           var + "='" + grant.visible_devices + "'" +
           (grant.node_gpus.empty() ? "" : " (node GPUs '" + grant.node_gpus + "')") +
           ", under which vLLM would read them as positions",
       "run the job on whole nodes (every GPU of the node granted), or set backend.set_visible_devices: true "
       "so that the worker is masked by the variable instead");
}

}  // namespace

void bind_step(StepEnvironment& env, const NodeTopology& topo, const NodeGrant& grant, const Profile& profile) {
  if (!env.worker || topo.gpus.empty()) return;
  Process w = *env.worker;
  for (int g : w.gpus)
    if (g < 0 || g >= int(topo.gpus.size()))
      fail(w.name + " uses GPU " + std::to_string(g) + " but this node has " + std::to_string(topo.gpus.size()) +
               " GPUs (" + topo.partition_mode + " mode)",
           "check resources.gpus_per_node against the node (srt-helper topology)");
  WorkerBinding b = bind_worker(topo, w.gpus, grant.cpus);
  b.roce_gid_index = grant.roce_gid_index;
  if (const auto pick = parse_atom_nic_pick(grant.atom_nic_pick)) b.atom_nic_pick = *pick;
  std::optional<GpuVisibility> vis;
  if (w.gpus_in_argv) {
    check_argv_gpus(w, grant, profile);
  } else {
    vis = gpu_visibility_env(grant.visible_devices, w.gpus, profile.visible_devices_env, grant.node_gpus);
    // What the engine will read for each GPU is the value written here, not the node index.
    b.visible_entries = parse_gpu_indices(vis->rocr_visible_devices, "ROCR_VISIBLE_DEVICES");
  }
  env.notes = apply_binding(w, b, grant.host_ip, profile, env.job_id);
  for (const auto& [k, v] : w.env) set_env(env.set, k, v);
  env.cpus = b.cpus;
  if (vis)
    for (const auto& [k, v] : vis->variables()) set_env(env.set, k, v);
}

}  // namespace srt

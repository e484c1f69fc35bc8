#include "srt/contract.hpp"

#include <cstdint>

#include "processes.hpp"
#include "srt/error.hpp"

namespace srt {

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
  const Process* w = plan.find(step);
  if (!w) fail("--srt-step=" + step + ": the recipe has no such worker", "srt-helper plan RECIPE lists the workers");
  if (w->node_index != node_index)
    fail("--srt-step=" + step + " runs on " + w->node + " (node " + std::to_string(w->node_index) +
             ") but this step is on " + node.name + " (node " + std::to_string(node_index) + ")",
         "launch it with srun -N1 -w " + w->node);
  for (const auto& [k, v] : w->env) plan_detail::set_env(out.set, k, v);
  out.unset = w->unset_env;
  out.worker = w;
  return out;
}

void bind_step(StepEnvironment& env, const NodeTopology& topo, const NodeGrant& grant, const Profile& profile) {
  if (!env.worker || topo.gpus.empty()) return;
  Process w = *env.worker;
  for (int g : w.gpus)
    if (g < 0 || g >= int(topo.gpus.size()))
      fail(w.name + " uses GPU " + std::to_string(g) + " but this node has " + std::to_string(topo.gpus.size()) +
               " GPUs (" + topo.partition_mode + " mode)",
           "check resources.gpus_per_node against the node (srt-helper topology)");
  const WorkerBinding b = bind_worker(topo, w.gpus, grant.cpus);
  apply_binding(w, b, grant.host_ip, profile, env.job_id);
  for (const auto& [k, v] : w.env) plan_detail::set_env(env.set, k, v);
  const GpuVisibility vis = gpu_visibility_env(grant.visible_devices, w.gpus, profile.visible_devices_env, grant.node_gpus);
  for (const auto& [k, v] : vis.variables()) plan_detail::set_env(env.set, k, v);
  env.cpus = b.cpus;
}

}  // namespace srt

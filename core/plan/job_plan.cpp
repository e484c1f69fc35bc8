#include "srt/job_plan.hpp"

#include <utility>

#include "srt/error.hpp"

namespace srt {

JobPlan plan_job(Recipe recipe, const std::string& recipe_path, const Profile& profile, const JobFacts& facts) {
  JobPlan job;
  job.recipe = std::move(recipe);
  job.inputs.nodes = facts.nodes;
  job.inputs.job_id = facts.job_id;
  job.inputs.addresses = facts.addresses;
  job.inputs.recipe_path = recipe_path;
  job.inputs.kv_events_capability = facts.kv_events_capability;
  if (!facts.this_node.empty()) {
    for (std::size_t i = 0; i < facts.nodes.size(); ++i)
      if (facts.nodes[i] == facts.this_node) job.node_index = int(i);
    if (job.node_index < 0) fail("node " + facts.this_node + " is not in the job's node list");
  }
  job.plan = make_plan(job.recipe, profile, job.inputs);
  return job;
}

RecipeOptions job_recipe_options(const Profile& profile) {
  RecipeOptions ro;
  ro.default_gpus_per_node = profile.gpus_per_node;
  return ro;
}

JobPlan plan_job(const Snapshot& snap, const Profile& profile, const JobFacts& facts) {
  return plan_job(snapshot_recipe(snap, profile), snap.recipe_path, profile, facts);
}

Plan replan(const Recipe& recipe, const PlanInputs& inputs, const Profile& profile,
            const std::string& kv_events_capability) {
  PlanInputs in = inputs;
  in.kv_events_capability = kv_events_capability;
  return make_plan(recipe, profile, in);
}

JobPlan plan_submission(Recipe recipe, const std::string& recipe_path, const Profile& profile) {
  JobFacts facts;
  for (int i = 0; i < node_demand(recipe, profile); ++i) facts.nodes.push_back("node" + std::to_string(i));
  return plan_job(std::move(recipe), recipe_path, profile, facts);
}

std::string step_node_name(const std::vector<std::string>& job_nodes, bool batch_step,
                           const std::vector<std::string>& step_nodes, std::uint32_t node_id) {
  if (job_nodes.empty()) fail("Slurm gave this job no nodes");
  if (batch_step) return job_nodes.front();
  if (node_id >= step_nodes.size())
    fail("Slurm's node index is outside the step's node list (index " + std::to_string(node_id) + ", " +
         std::to_string(step_nodes.size()) + " nodes)");
  return step_nodes[node_id];
}

}  // namespace srt

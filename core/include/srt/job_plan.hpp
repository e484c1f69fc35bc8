// The one way a job is planned (docs/design.md "The Plan"): from what every node has, the snapshot's
// recipe bytes, the cluster profile and the job's facts. The submit-side check, every
// slurmstepd, the launcher and `srt-helper plan` call it, so none of them can read the recipe
// or assemble the Plan's inputs differently and end up with another digest.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "srt/contract.hpp"
#include "srt/plan.hpp"

namespace srt {

struct JobFacts {
  std::vector<std::string> nodes;                // the job's hosts, Slurm order (expanded)
  std::uint64_t job_id = 0;
  std::map<std::string, std::string> addresses;  // node -> address; missing: the node name
  std::string kv_events_capability = "auto";     // what preflight found (auto: the profile's)
  std::string this_node;                         // "" = none (the launcher, `plan`)
};

struct JobPlan {
  Recipe recipe;
  PlanInputs inputs;    // what make_plan was given, for replan
  Plan plan;
  int node_index = -1;  // this_node's index in the job's node list; -1 without this_node
};

// How the submit side and every node read a job's recipe: the profile's gpus_per_node is the
// default, nothing else (no --set, no strictness the nodes would not share).
RecipeOptions job_recipe_options(const Profile& profile);

// Reads the recipe from the snapshot's document as every node does (snapshot_recipe: the
// profile's gpus_per_node is the default, no YAML) and plans it. Throws srt::Error naming the recipe's key, or this_node when it
// is not one of the job's nodes.
JobPlan plan_job(const Snapshot& snap, const Profile& profile, const JobFacts& facts);
// A recipe already read by the caller (`srt-helper plan` with --set/--unset, whose messages
// point into the user's file); recipe_path is SRT_RECIPE as the user gave it.
JobPlan plan_job(Recipe recipe, const std::string& recipe_path, const Profile& profile, const JobFacts& facts);

// The same job (its recipe and JobPlan::inputs) with what preflight found about the engine
// images' KV events.
Plan replan(const Recipe& recipe, const PlanInputs& inputs, const Profile& profile,
            const std::string& kv_events_capability);

// The submit-side check: the recipe planned on as many nodes as it needs, named node0, node1,
// ... (the real names come with the allocation). Refuses what no node could plan.
JobPlan plan_submission(Recipe recipe, const std::string& recipe_path, const Profile& profile);

// Which node of the job this slurmstepd runs on, from what Slurm gives it: the batch script
// runs on the job's first node, a step's task on node `node_id` (S_JOB_NODEID) of the step's
// node list. Throws srt::Error when Slurm's facts do not fit together.
std::string step_node_name(const std::vector<std::string>& job_nodes, bool batch_step,
                           const std::vector<std::string>& step_nodes, std::uint32_t node_id);

}  // namespace srt

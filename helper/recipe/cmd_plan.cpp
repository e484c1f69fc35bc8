// srt-helper plan: the Plan for a recipe on a node list, as a table or as JSON (a contract).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/engines.hpp"
#include "slurmapi/addresses.hpp"
#include "slurmapi/hostlist.hpp"
#include "srt/error.hpp"
#include "srt/contract.hpp"
#include "srt/job_plan.hpp"
#include "srt/topology.hpp"
#include "srt/join.hpp"

namespace srt::helper {

namespace {

struct PlanArgs {
  std::string recipe;
  std::string dash_f;
  RecipeFlags flags;
  std::string nodelist;
  std::uint64_t job_id = 0;
  std::string kv_capability = "auto";
  std::string topology_xml;
  bool json = false;
};

void print_table(const Plan& plan) {
  std::printf("job %llu: %d node(s) demanded, kv events %s, digest %.12s\n",
              static_cast<unsigned long long>(plan.job_id), plan.demand_nodes,
              to_string(plan.kv_events_mode), plan.digest.c_str());
  std::printf("\n%-5s %-20s %-16s %s\n", "NODE", "NAME", "ADDRESS", "ROLES");
  for (const auto& n : plan.nodes) {
    std::string roles;
    for (const auto& r : n.roles) roles += (roles.empty() ? "" : " ") + r;
    std::printf("%-5d %-20s %-16s %s\n", n.index, n.name.c_str(), n.address.c_str(), roles.c_str());
  }
  std::printf("\n%-18s %-20s %-10s %s\n", "PROCESS", "NODE", "GPUS", "PORTS");
  for (const auto& p : plan.processes) {
    std::string ports;
    p.ports.each([&ports](const char* kind, const std::vector<int>& list) {
      ports += (ports.empty() ? "" : " ") + std::string(kind) + "=";
      ports += list.size() > 2 ? std::to_string(list.front()) + "-" + std::to_string(list.back()) : join(list);
    });
    std::printf("%-18s %-20s %-10s %s\n", p.name.c_str(), p.node.c_str(), join(p.gpus).c_str(), ports.c_str());
  }
}

// Stated as Mooncake behaves (srt/topology.hpp rank_nics): with a NIC list every rank opens every
// NIC listed and registers its KV memory on each, and only its sends follow its GPU's preferred
// NIC; where ATOM picks, each rank opens one.
void print_rank_nics(const std::map<std::string, std::vector<RankNics>>& ranks, const std::vector<std::string>& notes) {
  if (ranks.empty()) return;
  std::printf("\nRDMA per rank: what each rank opens and registers its KV memory on, and the NIC its transfers "
              "go over.\n");
  std::printf("%-18s %-5s %-4s %-7s %-14s %s\n", "PROCESS", "RANK", "GPU", "MEMORY", "SENDS OVER", "OPENS");
  for (const auto& [name, list] : ranks)
    for (const auto& r : list)
      std::printf("%-18s %-5d %-4d %-7s %-14s %s\n", name.c_str(), r.rank, r.gpu, r.location.c_str(),
                  r.preferred.empty() ? "-" : join(r.preferred).c_str(), r.opens.empty() ? "-" : join(r.opens).c_str());
  for (const std::string& line : notes) std::printf("%s\n", line.c_str());
}

void run(const PlanArgs& a) {
  const Profile profile = load_profile(a.flags.profile);
  print_warnings(profile.source.warnings);
  const std::string arg = a.recipe.empty() ? a.dash_f : a.recipe;
  if (arg.empty() || (!a.recipe.empty() && !a.dash_f.empty()))
    throw CLI::ValidationError("recipe", "give one recipe, as RECIPE or -f RECIPE");
  const OneRecipe one = load_one_recipe(arg, recipe_options(a.flags, profile), "plan");
  const Recipe& recipe = one.recipe;
  print_warnings(recipe.source.warnings);  // before the Plan or the refusal, as validate does

  std::string nodelist = a.nodelist;
  if (nodelist.empty()) {
    const char* env = std::getenv("SLURM_JOB_NODELIST");
    if (!env || !*env)
      fail("no node list", "pass --nodelist 'mi355x-[01-03]' or run inside a Slurm job");
    nodelist = env;
  }
  JobFacts facts;
  facts.nodes = slurmapi::expand_hostlist(nodelist);
  facts.job_id = a.job_id;
  facts.kv_events_capability = a.kv_capability;
  facts.addresses = warn_preview_addresses(slurmapi::preview_addresses(facts.nodes, profile));
  // SRT_RECIPE: FILE[:SELECTOR] as given.
  Plan plan = plan_job(recipe, one.ref.given, profile, facts).plan;
  std::map<std::string, std::vector<RankNics>> ranks;  // RDMA workers: what each rank does with its NICs
  std::vector<std::string> notes;                      // what each worker's node would say about them
  if (!a.topology_xml.empty()) {
    // As if every node had this topology: the per-node binding a worker step would get.
    const NodeTopology topo = read_topology_xml(a.topology_xml);
    for (auto& p : plan.processes) {
      if (!p.is_worker()) continue;
      StepEnvironment env = step_environment(plan, p.node_index, p.name);
      bind_step(env, topo, NodeGrant{}, profile);
      p.env = env.set;
      notes.insert(notes.end(), env.notes.begin(), env.notes.end());
      if (!kv_over_rdma(recipe) || topo.gpus.empty()) continue;
      // The node's choice, read back from what it set: a NIC list or topology file, else ATOM's pick.
      const bool listed = std::any_of(env.set.begin(), env.set.end(), [](const auto& kv) {
        return kv.first == "ATOM_MOONCAKE_IB_DEVICE" || kv.first == "SRT_MOONCAKE_TOPOLOGY";
      });
      ranks[p.name] = rank_nics(bind_worker(topo, p.gpus, ""), !listed);
    }
  }
  if (a.json) {
    Json j = plan_to_json(plan);
    // What the Plan was made from, beside it (srtctl echoes applied overrides in --json output):
    // the argument, the variant it selected, and --set/--unset in command-line order.
    Json source = {{"given", one.ref.given}, {"file", one.ref.path}};
    if (!one.selector.empty()) source["variant"] = {{"selector", one.selector}, {"name", one.name}};
    source["overrides"] = {{"set", a.flags.set}, {"unset", a.flags.unset}};
    j["source"] = std::move(source);
    for (auto& p : j["processes"]) {
      const auto it = ranks.find(p.value("name", ""));
      if (it == ranks.end()) continue;
      Json list = Json::array();
      for (const auto& r : it->second)
        list.push_back({{"rank", r.rank}, {"gpu", r.gpu}, {"location", r.location}, {"preferred", r.preferred},
                        {"opens", r.opens}});
      p["rdma_ranks"] = std::move(list);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    print_table(plan);
    print_rank_nics(ranks, notes);
  }
  print_unsupported_note(one.ref.given, recipe);  // a Plan `launch` will refuse: say so after it
}

}  // namespace

void add_plan(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Print the Plan: roles, placement, ports, argv and environment");
  cmd->add_option("recipe", args->recipe, "Recipe file, FILE:SELECTOR for one variant of a variants file");
  cmd->add_option("-f", args->dash_f, "The recipe FILE[:SELECTOR] (srtctl's spelling)");
  add_recipe_flags(cmd, args->flags);
  cmd->add_option("--nodelist", args->nodelist, "Slurm host list (default: $SLURM_JOB_NODELIST)");
  cmd->add_option("--job-id", args->job_id, "Job id (default 0)");
  cmd->add_option("--kv-events-capability", args->kv_capability, "What the image can do: auto, offset, connect, none")
      ->check(CLI::IsMember({"auto", "offset", "connect", "none"}));
  cmd->add_option("--topology", args->topology_xml, "Fill the workers' bindings as if every node had this hwloc XML topology");
  cmd->add_flag("--json", args->json, "Print the whole Plan as JSON");
  cmd->callback([args] { run(*args); });
}

}  // namespace srt::helper

// Properties over generated valid recipes: no (node, port) pair used twice, the same inputs give
// the same Plan, and argv/env say exactly the ports the Plan assigned.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "process_checks.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_properties {

using namespace test_recipes;

namespace {

struct Generated {
  srt::Recipe recipe;
  srt::PlanInputs in;
  std::string capability;
};

Generated generate(std::mt19937& rng, int max_nodes) {
  auto pick = [&](std::vector<int> xs) { return xs[std::uniform_int_distribution<std::size_t>(0, xs.size() - 1)(rng)]; };
  const int gpn = pick({8, 8, 8, 64});  // 64: CPX-partitioned nodes, up to 64 ranks per worker
  std::vector<int> sizes;
  for (int s = 1; s <= gpn; s *= 2) sizes.push_back(s);
  const int gp = pick(sizes), gd = pick(sizes);
  const int budget = std::max(2, std::uniform_int_distribution<int>(2, max_nodes)(rng));
  const int pn = std::uniform_int_distribution<int>(1, budget - 1)(rng);
  const int dn = std::uniform_int_distribution<int>(1, budget - pn)(rng);
  // Workers that fit their nodes (the validator refuses the rest), at most 8 per node.
  const int pw = std::uniform_int_distribution<int>(1, std::min(pn * gpn / gp, pn * 8))(rng);
  const int dw = std::uniform_int_distribution<int>(1, std::min(dn * gpn / gd, dn * 8))(rng);
  Generated g;
  g.recipe = atom_pd(pn, dn, pw, dw, gp, gd, rng() % 2 == 0);
  g.recipe.resources.gpus_per_node = gpn;
  g.recipe.resources.spread_workers = rng() % 4 == 0;
  if (g.recipe.resources.spread_workers) {  // one worker per node: the validator refuses more
    g.recipe.resources.prefill_workers = std::min(pw, pn);
    g.recipe.resources.decode_workers = std::min(dw, dn);
  }
  g.recipe.backend.enable_kv_events = rng() % 2 == 0;
  g.recipe.backend.mooncake_protocol = rng() % 2 ? "tcp" : "rdma";
  const int nodes = pn + dn + int(rng() % 2);  // sometimes one node more than needed
  g.in = inputs(nodes, rng() % 100000);
  g.in.kv_events_capability = rng() % 2 ? "offset" : "connect";
  return g;
}

void check_plan(const srt::Plan& plan) {
  std::set<std::pair<int, int>> seen;
  for (const auto& p : plan.processes)
    for (const auto& [kind, ports] : all_ports(p))
      for (int port : ports)
        if (!seen.insert({p.node_index, port}).second) FAIL(p.name << " " << kind << " reuses port " << port << " on node " << p.node);
  for (const auto& p : plan.processes) {
    if (p.role != srt::Role::prefill && p.role != srt::Role::decode) continue;
    REQUIRE(arg_after(p, "--server-port") == std::to_string(p.ports.http[0]));
    REQUIRE(arg_after(p, "--port") == std::to_string(p.ports.engine[0]));
    const auto kv = srt::Json::parse(arg_after(p, "--kv-transfer-config"));
    REQUIRE(kv["handshake_port"] == p.ports.handshake[0]);
    REQUIRE(int(p.ports.handshake.size()) == p.ranks);
    if (!p.ports.dp_master.empty())
      REQUIRE(env_of(p, "ATOM_DP_MASTER_PORT") == std::to_string(p.ports.dp_master[0]));
    if (!p.ports.kv_events.empty())
      REQUIRE(env_of(p, "ATOM_KV_EVENTS_ENDPOINT") == "tcp://*:" + std::to_string(p.ports.kv_events[0]));
  }
}

}  // namespace

TEST_CASE("property: thousands of generated recipes never reuse a port and render what they assign") {
  std::mt19937 rng(20261129);
  const srt::Profile prof = srt::default_profile();
  for (int i = 0; i < 2000; ++i) {
    Generated g = generate(rng, 16);
    INFO("case " << i);
    const srt::Plan a = srt::make_plan(g.recipe, prof, g.in);
    check_plan(a);
    const srt::Plan b = srt::make_plan(g.recipe, prof, g.in);
    REQUIRE(a.digest == b.digest);
  }
}

TEST_CASE("property: large jobs up to 1024 nodes") {
  std::mt19937 rng(1024);
  const srt::Profile prof = srt::default_profile();
  for (int i = 0; i < 12; ++i) {
    Generated g = generate(rng, 1024);
    INFO("case " << i << " with " << g.in.nodes.size() << " nodes");
    const srt::Plan a = srt::make_plan(g.recipe, prof, g.in);
    check_plan(a);
    REQUIRE(srt::plan_to_json(a) == srt::plan_to_json(srt::make_plan(g.recipe, prof, g.in)));
  }
}

}  // namespace test_properties

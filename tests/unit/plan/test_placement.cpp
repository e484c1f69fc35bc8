#include <catch2/catch.hpp>

#include "recipes.hpp"
#include "srt/error.hpp"

using namespace test_recipes;

namespace {
std::vector<int> iota(int from, int to) {
  std::vector<int> v;
  for (int i = from; i <= to; ++i) v.push_back(i);
  return v;
}
}  // namespace

TEST_CASE("node demand is srtctl's: prefill + decode nodes, plus dedicated roles") {
  srt::Profile p = srt::default_profile();
  CHECK(srt::node_demand(dsv4_1p1d(), p) == 2);
  CHECK(srt::node_demand(dsv4_2p1d(), p) == 3);

  srt::Recipe agg;
  agg.backend.type = "atom";
  CHECK(srt::node_demand(agg, p) == 1);
  agg.resources.agg_nodes = 4;
  CHECK(srt::node_demand(agg, p) == 4);

  srt::Recipe r = dsv4_1p1d();
  r.frontend.dedicated_node = true;
  r.benchmark.client_dedicated_node = true;
  CHECK(srt::node_demand(r, p) == 3);  // colocated: one shared extra node
  r.benchmark.colocate_with_frontend = false;
  CHECK(srt::node_demand(r, p) == 4);  // one per role
}

TEST_CASE("2P1D: each worker owns a whole node, router and benchmark on node 0") {
  srt::Plan plan = srt::make_plan(dsv4_2p1d(), srt::default_profile(), inputs(3));
  REQUIRE(plan.nodes.size() == 3);
  CHECK(plan.nodes[0].roles == std::vector<std::string>{"prefill:0", "frontend", "benchmark"});
  CHECK(plan.nodes[1].roles == std::vector<std::string>{"prefill:1"});
  CHECK(plan.nodes[2].roles == std::vector<std::string>{"decode:0"});
  const srt::Process* p1 = plan.find("prefill:1");
  REQUIRE(p1);
  CHECK(p1->node == "mi355x-02");
  CHECK(p1->gpus == iota(0, 7));
  CHECK(plan.find("router")->node == "mi355x-01");
  CHECK(plan.find("benchmark")->node == "mi355x-01");
}

TEST_CASE("small workers pack at GPU offsets and decode starts on a fresh node") {
  // 3 prefill workers of 4 GPUs on 2 nodes: node0 gets 0-3 and 4-7, node1 0-3; decode skips the rest.
  srt::Recipe r = atom_pd(2, 1, 3, 2, 4, 4, false);
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(3));
  CHECK(plan.find("prefill:0")->gpus == iota(0, 3));
  CHECK(plan.find("prefill:1")->node_index == 0);
  CHECK(plan.find("prefill:1")->gpus == iota(4, 7));
  CHECK(plan.find("prefill:2")->node_index == 1);
  CHECK(plan.find("decode:0")->node_index == 2);
  CHECK(plan.find("decode:0")->gpus == iota(0, 3));
  CHECK(plan.find("decode:1")->gpus == iota(4, 7));
}

TEST_CASE("decode shares the prefill node when decode_nodes is 0") {
  srt::Recipe r = atom_pd(1, 0, 1, 1, 4, 0, false);
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(1));
  CHECK(plan.find("decode:0")->node_index == 0);
  CHECK(plan.find("decode:0")->gpus == iota(4, 7));  // inherits the prefill size, packed after it
}

TEST_CASE("spread_workers puts one partial worker on each node") {
  srt::Recipe r = atom_pd(2, 2, 2, 2, 4, 4, false);
  r.resources.spread_workers = true;
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(4));
  CHECK(plan.find("prefill:0")->node_index == 0);
  CHECK(plan.find("prefill:1")->node_index == 1);
  CHECK(plan.find("decode:0")->node_index == 2);
  CHECK(plan.find("decode:1")->node_index == 3);
}

TEST_CASE("too few nodes: the demand is named before anything is placed") {
  REQUIRE_THROWS_WITH(srt::make_plan(dsv4_2p1d(), srt::default_profile(), inputs(2)),
                      Catch::Contains("needs 3 nodes but the job has 2") && Catch::Contains("-N 3"));
}

TEST_CASE("placement that runs out of nodes says srtctl's 'Not enough nodes'") {
  srt::Recipe r = atom_pd(1, 1, 3, 1, 4, 8, false);  // 12 prefill GPUs claimed on 1 node
  REQUIRE_THROWS_WITH(srt::make_plan(r, srt::default_profile(), inputs(2)),
                      Catch::Contains("Not enough nodes: need node 3, but only 2 available"));
}

TEST_CASE("a dedicated client node takes the tail of the node list") {
  srt::Recipe r = dsv4_1p1d();
  r.benchmark.client_dedicated_node = true;
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(3));
  CHECK(plan.find("prefill:0")->node_index == 0);
  CHECK(plan.find("decode:0")->node_index == 1);
  CHECK(plan.find("router")->node_index == 2);
  CHECK(plan.find("benchmark")->node_index == 2);
}

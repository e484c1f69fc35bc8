#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "recipes.hpp"
#include "srt/port_check.hpp"

using namespace test_recipes;

namespace {

// Every (node, port) bound by any process of the plan, with the owner; fails on a duplicate.
std::map<std::pair<int, int>, std::string> all_ports(const srt::Plan& plan) {
  std::map<std::pair<int, int>, std::string> seen;
  for (const auto& p : plan.processes)
    for (const auto& [kind, ports] : test_recipes::all_ports(p))
      for (int port : ports) {
        auto [it, fresh] = seen.emplace(std::make_pair(p.node_index, port), p.name + " " + kind);
        INFO("port " << port << " on node " << p.node_index << ": " << it->second << " and " << p.name << " " << kind);
        CHECK(fresh);
      }
  return seen;
}

const std::set<int> engine_defaults = {8006, 29500, 6301, 5557, 30000, 29000, 12001};

}  // namespace

TEST_CASE("two DP-attention workers of 4 GPUs on one node get disjoint blocks") {
  srt::Recipe r = atom_pd(1, 1, 2, 2, 4, 4, true);
  r.backend.enable_kv_events = true;
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(2));
  const auto ports = all_ports(plan);
  const srt::Process* a = plan.find("prefill:0");
  const srt::Process* b = plan.find("prefill:1");
  REQUIRE(a->node_index == b->node_index);
  CHECK(a->ports.handshake.size() == 4);  // one side channel per DP rank
  CHECK(a->ports.kv_events.size() == 4);
  CHECK(a->ports.dp_master != b->ports.dp_master);
  CHECK(a->ports.engine != b->ports.engine);
  for (const auto& [key, owner] : ports) {
    INFO(owner << " has port " << key.second);
    CHECK_FALSE(engine_defaults.count(key.second));
    CHECK_FALSE((key.second >= 15000 && key.second <= 17000));  // Mooncake's random RPC range
  }
}

TEST_CASE("the public frontend port is 8000 on the head node, everything else in the range") {
  srt::Profile prof = srt::default_profile();
  srt::Plan plan = srt::make_plan(dsv4_2p1d(), prof, inputs(3));
  CHECK(plan.find("router")->ports.http == std::vector<int>{8000});
  for (const auto& p : plan.processes)
    for (const auto& [kind, ports] : test_recipes::all_ports(p))
      for (int port : ports) {
        if (p.name == "router" && kind == "http") continue;
        CHECK(port >= prof.port_range_begin);
        CHECK(port <= prof.port_range_end);
      }
}

TEST_CASE("exclusive nodes: ports do not depend on the job id, shared nodes: disjoint per job slot") {
  srt::Profile prof = srt::default_profile();
  const auto a = srt::make_plan(dsv4_2p1d(), prof, inputs(3, 1));
  const auto b = srt::make_plan(dsv4_2p1d(), prof, inputs(3, 2));
  CHECK(a.find("prefill:0")->ports == b.find("prefill:0")->ports);

  prof.node_sharing = srt::NodeSharing::shared;
  prof.shared_job_slots = 4;
  const auto c = srt::make_plan(dsv4_2p1d(), prof, inputs(3, 1));
  const auto d = srt::make_plan(dsv4_2p1d(), prof, inputs(3, 2));
  std::set<int> c_ports, d_ports;
  for (const auto* pl : {&c, &d})
    for (const auto& p : pl->processes)
      for (const auto& [kind, ports] : test_recipes::all_ports(p))
        for (int port : ports) (pl == &c ? c_ports : d_ports).insert(port);
  for (int port : c_ports) CHECK_FALSE(d_ports.count(port));
}

TEST_CASE("shared nodes: the public frontend port is the job's own, in its slice, and the contract says which") {
  srt::Profile prof = srt::default_profile();
  prof.node_sharing = srt::NodeSharing::shared;
  prof.shared_job_slots = 4;
  const int width = (prof.port_range_end - prof.port_range_begin + 1) / 4;
  for (std::uint64_t job : {1, 2, 7}) {
    const srt::Plan plan = srt::make_plan(dsv4_2p1d(), prof, inputs(3, job));
    const srt::Process* router = plan.find("router");
    REQUIRE(router);
    const int port = router->ports.http.front();
    const int slice = prof.port_range_begin + int(job % 4) * width;
    INFO("job " << job << ": frontend port " << port);
    CHECK(port >= slice);
    CHECK(port < slice + width);
    CHECK(port != prof.frontend_port);
    CHECK(router->readiness.port == port);
    CHECK(std::find(router->argv.begin(), router->argv.end(), std::to_string(port)) != router->argv.end());
    const auto env = std::find_if(plan.job_env.begin(), plan.job_env.end(),
                                  [](const auto& kv) { return kv.first == "SRT_FRONTEND_PORT"; });
    REQUIRE(env != plan.job_env.end());
    CHECK(env->second == std::to_string(port));
  }
}

TEST_CASE("planned_ports lists every port of every process once per node, as port-check words") {
  const srt::Plan plan = srt::make_plan(dsv4_2p1d(), srt::default_profile(), inputs(3));
  const auto uses = srt::planned_ports(plan);
  std::size_t expected = 0;
  for (const auto& [key, owner] : all_ports(plan)) {
    (void)owner;
    ++expected;
  }
  CHECK(uses.size() == expected);
  bool frontend = false;
  for (const auto& u : uses) {
    const auto back = srt::parse_port_spec(srt::port_spec(u));
    REQUIRE(back);
    CHECK(back->node == u.node);
    CHECK(back->port == u.port);
    CHECK(back->what == u.what);
    if (u.what == "router http") frontend = u.port == 8000 && u.node == plan.find("router")->node;
  }
  CHECK(frontend);
}

TEST_CASE("parse_port_spec refuses what is not NODE:PORT:WHAT") {
  CHECK(srt::parse_port_spec("n1:20001:prefill:0 http")->what == "prefill:0 http");
  for (const char* bad : {"", "n1", "n1:", "n1:20001", "n1:20001:", ":20001:x", "n1::x", "n1:0:x", "n1:65536:x",
                          "n1:-1:x", "n1:2e3:x", "n1:123456:x"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(srt::parse_port_spec(bad));
  }
}

TEST_CASE("a range too small for the plan is a clear error naming the node and the profile keys") {
  srt::Profile prof = srt::default_profile();
  prof.port_range_begin = 20000;
  prof.port_range_end = 20005;
  REQUIRE_THROWS_WITH(srt::make_plan(dsv4_2p1d(), prof, inputs(3)),
                      Catch::Contains("node mi355x-01") && Catch::Contains("20000-20005") &&
                          Catch::Contains("port_range_end"));
}

TEST_CASE("the allocator steps around the engine defaults inside its range") {
  srt::Profile prof = srt::default_profile();
  prof.port_range_begin = 29495;  // straddles ATOM_DP_MASTER_PORT's default 29500
  prof.port_range_end = 29600;
  srt::Plan plan = srt::make_plan(dsv4_2p1d(), prof, inputs(3));
  for (const auto& p : plan.processes)
    for (const auto& [kind, ports] : test_recipes::all_ports(p))
      for (int port : ports) CHECK(port != 29500);
}

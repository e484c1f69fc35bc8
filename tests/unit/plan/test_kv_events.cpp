// KV-event modes (docs/design.md "KV events"): which mode the Plan picks from the image's capability,
// and that in every mode each rank's socket has an address of its own on its node.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "process_checks.hpp"
#include "srt/error.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_kv_events {

using namespace test_recipes;

namespace {

// Two 4-GPU DP-attention prefill workers share node 0 (the stand-ins' mutation-test shape).
srt::Recipe two_workers_per_node() {
  srt::Recipe r = atom_pd(1, 1, 2, 2, 4, 4, true);
  r.backend.enable_kv_events = true;
  r.model.container = "rocm/atom-dev:nightly";
  return r;
}

srt::Plan plan_with(const srt::Recipe& r, const std::string& capability) {
  srt::PlanInputs in = inputs(2);
  in.kv_events_capability = capability;
  return srt::make_plan(r, srt::default_profile(), in);
}

// Every port of every process on every node, with who holds it: no address is bound twice.
void require_no_shared_port(const srt::Plan& plan) {
  std::map<std::pair<int, int>, std::string> holder;
  for (const auto& p : plan.processes)
    for (const auto& [kind, ports] : all_ports(p))
      for (int port : ports) {
        auto [it, fresh] = holder.emplace(std::make_pair(p.node_index, port), p.name + " " + kind);
        INFO("node " << p.node_index << " port " << port << ": " << it->second << " and " << p.name << " " << kind);
        CHECK(fresh);
      }
}

}  // namespace

TEST_CASE("KV events off: no KV-event variable, port or endpoint") {
  srt::Recipe r = two_workers_per_node();
  r.backend.enable_kv_events = false;
  for (const char* capability : {"auto", "offset", "connect", "none"}) {
    const srt::Plan plan = plan_with(r, capability);
    CHECK(plan.kv_events_mode == srt::KvMode::off);
    CHECK(plan.kv_event_endpoints.empty());
    for (const auto& p : plan.processes) {
      CHECK(env_of(p, "ATOM_KV_EVENTS_ENABLE") == "<unset>");
      CHECK(p.ports.kv_events.empty());
      CHECK(p.role != srt::Role::kv_relay);
    }
  }
}

TEST_CASE("offset: each worker gets a block as wide as its ranks, the Plan advertises every rank") {
  for (const char* capability : {"offset", "auto"}) {  // auto: assume offset until preflight says
    const srt::Plan plan = plan_with(two_workers_per_node(), capability);
    REQUIRE(plan.kv_events_mode == srt::KvMode::offset);
    std::set<std::string> advertised(plan.kv_event_endpoints.begin(), plan.kv_event_endpoints.end());
    CHECK(advertised.size() == 16);  // 4 workers x 4 DP ranks, all distinct
    for (const char* name : {"prefill:0", "prefill:1", "decode:0", "decode:1"}) {
      const srt::Process& w = *plan.find(name);
      const auto& block = w.ports.kv_events;
      REQUIRE(block.size() == 4);
      for (std::size_t r = 0; r < block.size(); ++r) {
        CHECK(block[r] == block[0] + int(r));  // rank r binds base + r (vLLM's rule)
        const std::string& addr = plan.nodes[std::size_t(w.node_index)].address;
        CHECK(advertised.count("tcp://" + addr + ":" + std::to_string(block[r])));
      }
      CHECK(env_of(w, "ATOM_KV_EVENTS_ENDPOINT") == "tcp://*:" + std::to_string(block[0]));
      CHECK(env_of(w, "ATOM_KV_EVENTS_ENABLE") == "1");
      CHECK(env_of(w, "INFERA_ATOM_KV_EVENTS_CONNECT") == "<unset>");
    }
    require_no_shared_port(plan);
  }
}

TEST_CASE("relay: one kv-relay per worker on its node, distinct loopback ingress ports") {
  const srt::Plan plan = plan_with(two_workers_per_node(), "connect");
  REQUIRE(plan.kv_events_mode == srt::KvMode::relay);
  CHECK(plan.kv_event_endpoints.size() == 4);
  std::set<std::string> ingresses;
  for (const char* name : {"prefill:0", "prefill:1", "decode:0", "decode:1"}) {
    const srt::Process& w = *plan.find(name);
    const srt::Process* relay = plan.find(std::string("kv-relay:") + name);
    REQUIRE(relay);
    CHECK(relay->node_index == w.node_index);  // loopback ingress: the relay must share the node
    CHECK(w.ports.kv_events.empty());   // ranks connect; only the relay binds
    // TCP on loopback, reachable from a container with a private /tmp that shares the host's
    // network (pyxis); the relay binds it, so it is one of the relay's planned ports.
    REQUIRE(relay->ports.kv_ingress.size() == 1);
    const std::string ingress = "tcp://127.0.0.1:" + std::to_string(relay->ports.kv_ingress[0]);
    CHECK(env_of(w, "INFERA_ATOM_KV_EVENTS_ENDPOINT") == ingress);
    CHECK(env_of(w, "INFERA_ATOM_KV_EVENTS_CONNECT") == "1");
    // ATOM's native publisher binds in every rank: never the ingress, never one fixed port.
    CHECK(env_of(w, "ATOM_KV_EVENTS_ENDPOINT") == "tcp://127.0.0.1:*");
    // It binds the node's address, the one the Plan advertises, not every interface.
    const std::string advertised = "tcp://" + plan.nodes.at(std::size_t(relay->node_index)).address + ":" +
                                   std::to_string(relay->ports.kv_events[0]);
    CHECK(advertised.rfind("tcp://10.0.0.", 0) == 0);
    CHECK(std::count(plan.kv_event_endpoints.begin(), plan.kv_event_endpoints.end(), advertised) == 1);
    CHECK(relay->argv == std::vector<std::string>{"srt-helper", "kv-relay", "--ingress", ingress, "--bind", advertised});
    ingresses.insert(relay->node + " " + ingress);  // each node's loopback is its own
  }
  CHECK(ingresses.size() == 4);
  require_no_shared_port(plan);
}

TEST_CASE("relay: a node known only by its name (no IPv4 address) binds every interface") {
  srt::PlanInputs in = inputs(2);
  in.addresses.clear();  // the Plan then advertises the node's name, which libzmq cannot bind
  in.kv_events_capability = "connect";
  const srt::Plan plan = srt::make_plan(two_workers_per_node(), srt::default_profile(), in);
  const srt::Process* relay = plan.find("kv-relay:prefill:0");
  REQUIRE(relay);
  CHECK(relay->argv.back() == "tcp://*:" + std::to_string(relay->ports.kv_events[0]));
  CHECK(plan.kv_event_endpoints.front() == "tcp://" + relay->node + ":" + std::to_string(relay->ports.kv_events[0]));
}

TEST_CASE("capability none: refused with the worker, the image and what it lacks") {
  try {
    plan_with(two_workers_per_node(), "none");
    FAIL("make_plan accepted KV events with 4 DP ranks on an image that can neither offset nor connect");
  } catch (const srt::Error& e) {
    const std::string what = e.what();
    CHECK(e.diagnostics().at(0).key_path == "backend.enable_kv_events");
    CHECK_THAT(what, Catch::Contains("prefill:0 runs 4 DP ranks") && Catch::Contains("rocm/atom-dev:nightly") &&
                         Catch::Contains("kv_events_capability: none") && Catch::Contains("ATOM PR #1316") &&
                         Catch::Contains("Address already in use"));
  }
}

TEST_CASE("capability none is fine when every worker has one rank") {
  srt::Recipe r = atom_pd(1, 1, 1, 1, 8, 8, false);  // TP8 without DP attention: one EngineCore
  r.backend.enable_kv_events = true;
  const srt::Plan plan = plan_with(r, "none");
  CHECK(plan.kv_events_mode == srt::KvMode::offset);
  CHECK(plan.kv_event_endpoints.size() == 2);
  CHECK(plan.find("prefill:0")->ports.kv_events.size() == 1);
}

}  // namespace test_kv_events

// The digest is what every node and the submit side compare: it must change whenever anything
// the Plan shows changes, and only then. plan_digest() hashes the fields directly (not the JSON),
// so this test walks every key plan_to_json emits and insists on a mutation that reaches it.
#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "recipes.hpp"

using namespace test_recipes;

namespace {

srt::Plan kv_plan() {
  srt::Recipe r = dsv4_2p1d();
  r.backend.enable_kv_events = true;
  srt::PlanInputs in = inputs(3);
  in.kv_events_capability = "offset";
  return srt::make_plan(r, srt::default_profile(), in);
}

using Mutation = std::pair<std::string, std::function<void(srt::Plan&)>>;

// One mutation per key plan_to_json writes ("process." for keys of a process object).
std::vector<Mutation> mutations() {
  auto w = [](srt::Plan& p) -> srt::Process& { return p.processes.front(); };
  return {
      {"job_id", [](srt::Plan& p) { p.job_id += 1; }},
      {"demand", [](srt::Plan& p) { p.demand_nodes += 1; }},
      {"nodes", [](srt::Plan& p) { p.nodes[1].address = "10.9.9.9"; }},
      {"nodes.index", [](srt::Plan& p) { p.nodes[2].index = 7; }},
      {"nodes.name", [](srt::Plan& p) { p.nodes[0].name += "x"; }},
      {"nodes.roles", [](srt::Plan& p) { p.nodes[0].roles.push_back("extra"); }},
      {"processes", [](srt::Plan& p) { p.processes.pop_back(); }},
      {"process.name", [w](srt::Plan& p) { w(p).name += "x"; }},
      {"process.role", [w](srt::Plan& p) { w(p).role = srt::Role::decode; }},
      {"process.index", [w](srt::Plan& p) { w(p).index += 1; }},
      {"process.node", [w](srt::Plan& p) { w(p).node += "x"; }},
      {"process.node_index", [w](srt::Plan& p) { w(p).node_index += 1; }},
      {"process.step_name", [w](srt::Plan& p) { w(p).step_name += "x"; }},
      {"process.gpus", [w](srt::Plan& p) { std::swap(w(p).gpus[0], w(p).gpus[1]); }},
      {"process.ranks", [w](srt::Plan& p) { w(p).ranks += 1; }},
      {"process.dp_ranks", [w](srt::Plan& p) { w(p).dp_ranks += 1; }},
      {"process.argv", [w](srt::Plan& p) { w(p).argv.back() += "x"; }},
      {"process.argv split", [w](srt::Plan& p) {  // same characters, other boundaries
         auto& a = w(p).argv;
         a[a.size() - 2] += a.back();
         a.back().clear();
       }},
      {"process.env", [w](srt::Plan& p) { w(p).env.front().second += "x"; }},
      {"process.unset_env", [w](srt::Plan& p) { w(p).unset_env.push_back("X"); }},
      {"process.ports", [w](srt::Plan& p) { w(p).ports.http[0] += 1; }},
      {"process.readiness", [w](srt::Plan& p) { w(p).readiness.path = "/ready"; }},
      {"process.log_file", [w](srt::Plan& p) { w(p).log_file += "x"; }},
      {"process.critical", [w](srt::Plan& p) { w(p).critical = !w(p).critical; }},
      {"process.container image", [w](srt::Plan& p) { w(p).container.image += "-other"; }},
      {"process.container on_host", [w](srt::Plan& p) { w(p).container.on_host = !w(p).container.on_host; }},
      {"process.container mount", [w](srt::Plan& p) { w(p).container.mounts.front().host += "x"; }},
      {"process.container mount path", [w](srt::Plan& p) { w(p).container.mounts.back().container += "x"; }},
      {"process.container mount ro", [w](srt::Plan& p) {
         w(p).container.mounts.front().read_only = !w(p).container.mounts.front().read_only;
       }},
      {"process.container device", [w](srt::Plan& p) {
         w(p).container.mounts.front().device = !w(p).container.mounts.front().device;
       }},
      {"process.container memlock", [w](srt::Plan& p) {
         w(p).container.unlimited_memlock = !w(p).container.unlimited_memlock;
       }},
      {"kv_events_mode", [](srt::Plan& p) { p.kv_events_mode = srt::KvMode::relay; }},
      {"kv_event_endpoints", [](srt::Plan& p) { p.kv_event_endpoints.pop_back(); }},
      {"job_env", [](srt::Plan& p) { p.job_env.back().second += "x"; }},
      {"benchmark_points", [](srt::Plan& p) { p.benchmark_points.push_back(64); }},
  };
}

}  // namespace

TEST_CASE("the digest is stable: same inputs, same digest, the recorded one is plan_digest's") {
  const srt::Plan a = kv_plan();
  const srt::Plan b = kv_plan();
  CHECK(a.digest.size() == 64);
  CHECK(a.digest == b.digest);
  CHECK(srt::plan_digest(a) == a.digest);
}

TEST_CASE("every field plan_to_json shows is covered by the digest") {
  const srt::Plan base = kv_plan();
  std::set<std::string> seen = {base.digest};
  std::set<std::string> covered;
  for (const auto& [key, mutate] : mutations()) {
    INFO(key);
    srt::Plan p = base;
    mutate(p);
    CHECK(srt::plan_to_json(p) != srt::plan_to_json(base));  // the mutation is visible
    const std::string d = srt::plan_digest(p);
    CHECK(seen.insert(d).second);                           // and the digest follows it
    covered.insert(key.substr(0, key.find_first_of(". ")));
    if (key.rfind("process.", 0) == 0) covered.insert(key.substr(0, key.find(' ')));
  }
  // A key added to plan_to_json without a mutation here (and a field in plan_digest) fails.
  const srt::Json j = srt::plan_to_json(base);
  for (const auto& [k, _] : j.items()) {
    INFO("plan key " << k);
    if (k != "digest") CHECK(covered.count(k) == 1);
  }
  for (const auto& [k, _] : j["processes"][0].items()) {
    INFO("process key " << k);
    CHECK(covered.count("process." + k) == 1);
  }
}

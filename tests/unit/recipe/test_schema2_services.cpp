// Schema 2's generic services (srtctl v2.18 ServiceConfig): read with srtctl's defaults, placed on
// the nodes their placement names, their readiness port claimed before any worker's, their image,
// environment and preamble in what the step runs; what srt-spank cannot run of them is a "cannot
// launch" key, and a bad name or pattern is refused at its line.
#include <catch2/catch.hpp>

#include <algorithm>

#include "srt/error.hpp"
#include "srt/plan.hpp"
#include "srt/readiness.hpp"
#include "srt/recipe.hpp"
#include "recipe_checks.hpp"
#include "minimal_recipe.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_schema2_services {

namespace {

// services: starts on line 10.
const std::string kPd =
    "schema: 2\n"                                                          // 1
    "name: t\n"                                                            // 2
    "model: {path: m, container: img-a}\n"                                 // 3
    "resources: {gpus_per_node: 8}\n"                                      // 4
    "engine: sglang\n"                                                     // 5
    "frontend: {type: sglang-router, enable_multiple_frontends: false}\n"  // 6
    "roles:\n"                                                             // 7
    "  prefill: {nodes: 1, workers: 1}\n"                                  // 8
    "  decode: {nodes: 1, workers: 1}\n";                                  // 9

const std::string kUmbp =
    "services:\n"                                                                 // 10
    "  - name: umbp\n"                                                            // 11
    "    placement: {node: prefill}\n"                                           // 12
    "    start: before_workers\n"                                                 // 13
    "    critical: true\n"                                                        // 14
    "    inherit_discovery_env: false\n"                                          // 15
    "    command: [/opt/umbp_server, 'unix:///logs/umbp.sock']\n"                 // 16
    "    args: [--verbose]\n"                                                     // 17
    "    env: {UMBP_DRAM_CAPACITY: '1500000000000', GPU_MAX_HW_QUEUES: 5}\n"      // 18
    "    preamble: 'export LD_LIBRARY_PATH=/opt/lib'\n"                          // 19
    "    cpus_per_task: 4\n"                                                      // 20
    "    srun_options: {mem: 8G}\n"                                               // 21
    "    readiness: {log: {pattern: 'host memory registered'}, timeout_seconds: 5400, interval_seconds: 1}\n";  // 22

using recipe_checks::errors8;
using recipe_checks::has_at;
using recipe_checks::load8;

srt::Plan plan_of(const srt::Recipe& r, const srt::Profile& profile = srt::default_profile()) {
  srt::PlanInputs in;
  in.job_id = 7;
  in.recipe_path = "r.yaml";
  in.nodes = {"n1", "n2"};
  in.addresses = {{"n1", "10.0.0.1"}, {"n2", "10.0.0.2"}};
  return srt::make_plan(r, profile, in);
}

// Pointers into `p`: keep the Plan alive while they are used.
std::vector<const srt::Process*> services_of(const srt::Plan& p) {
  std::vector<const srt::Process*> out;
  for (const auto& x : p.processes)
    if (x.role == srt::Role::service) out.push_back(&x);
  return out;
}

std::string env_of(const srt::Process& p, const std::string& name) {
  for (const auto& [k, v] : p.env)
    if (k == name) return v;
  return "<unset>";
}

}  // namespace

TEST_CASE("schema 2: a generic service is read with every key srt-spank runs, and launches", "[recipe][services]") {
  const srt::Recipe r = load8(kPd + kUmbp);
  CHECK(r.unsupported_keys.empty());
  REQUIRE(r.services.size() == 1);
  const srt::Service& s = r.services[0];
  CHECK(s.name == "umbp");
  CHECK(s.argv == std::vector<std::string>{"/opt/umbp_server", "unix:///logs/umbp.sock", "--verbose"});
  CHECK(s.node == "prefill");
  CHECK(s.before_workers);
  CHECK(s.critical);
  CHECK(s.env == srt::EnvList{{"UMBP_DRAM_CAPACITY", "1500000000000"}, {"GPU_MAX_HW_QUEUES", "5"}});
  CHECK(s.cpus_per_task == 4);
  CHECK(s.readiness.kind == "log");
  CHECK(s.readiness.pattern == "host memory registered");
  CHECK(s.readiness.timeout_seconds == 5400);
  CHECK(s.readiness.interval_seconds == 1);

  // srtctl's defaults: head, after the frontend, not critical, 120 s / 2 s.
  const srt::Recipe d = load8(kPd + "services:\n  - {name: side, command: [sleep, inf], readiness: {port: 9000}}\n");
  REQUIRE(d.services.size() == 1);
  CHECK(d.services[0].node == "head");
  CHECK_FALSE(d.services[0].before_workers);
  CHECK_FALSE(d.services[0].critical);
  CHECK(d.services[0].readiness.kind == "tcp");
  CHECK(d.services[0].readiness.port == 9000);
  CHECK(d.services[0].readiness.timeout_seconds == 120);
  CHECK(d.services[0].readiness.interval_seconds == 2);
  // enabled: false drops it; another kind is not a generic service.
  CHECK(load8(kPd + "services:\n  - {name: side, command: [x], enabled: false}\n").services.empty());
}

TEST_CASE("schema 2: a service runs on the nodes its placement names, in its image, with its probe", "[plan][services]") {
  const srt::Plan p = plan_of(load8(kPd + kUmbp));
  const auto svc = services_of(p);
  REQUIRE(svc.size() == 1);
  const srt::Process& u = *svc[0];
  const srt::Process* prefill = p.find("prefill:0");
  REQUIRE(prefill);
  CHECK(u.node == prefill->node);
  CHECK(u.name == "service:umbp:0");
  CHECK(u.step_name == "service_umbp_0");
  CHECK(u.log_file == "service_umbp.out");
  CHECK(u.critical);
  CHECK(u.container.image == "img-a");  // the job's image when it names none
  CHECK(u.readiness.kind == "log");
  CHECK(u.readiness.pattern == "host memory registered");
  CHECK(u.readiness.timeout_seconds == 5400);
  // The preamble runs in the step's shell, which then becomes the command.
  REQUIRE(u.argv.size() == 7);
  CHECK(u.argv[0] == "bash");
  CHECK(u.argv[2] == "export LD_LIBRARY_PATH=/opt/lib\nexec \"$@\"");
  CHECK(std::vector<std::string>(u.argv.begin() + 4, u.argv.end()) ==
        std::vector<std::string>{"/opt/umbp_server", "unix:///logs/umbp.sock", "--verbose"});
  CHECK(env_of(u, "UMBP_DRAM_CAPACITY") == "1500000000000");
  CHECK(env_of(u, "SRT_RECIPE") == "r.yaml");  // the job's contract, as the benchmark has it
  CHECK(std::find(p.nodes[std::size_t(u.node_index)].roles.begin(), p.nodes[std::size_t(u.node_index)].roles.end(),
                  "service:umbp:0") != p.nodes[std::size_t(u.node_index)].roles.end());

  // all: one per node, each its own log; an alias of the profile names its image.
  srt::Profile profile = srt::default_profile();
  profile.containers["tools"] = "registry/tools:1";
  const srt::Plan all = plan_of(load8(kPd + "services:\n  - {name: side, command: [x], container: tools, placement: {node: all}}\n"),
                                profile);
  const auto each = services_of(all);
  REQUIRE(each.size() == 2);
  CHECK(each[0]->node == "n1");
  CHECK(each[1]->node == "n2");
  CHECK(each[0]->log_file == "service_side_n1.out");
  CHECK(each[1]->step_name == "service_side_1");
  CHECK(each[0]->container.image == "registry/tools:1");
  CHECK(each[0]->readiness.kind == "none");
  CHECK_FALSE(each[0]->critical);
  // decode: the decode worker's node only.
  const srt::Plan on_decode = plan_of(load8(kPd + "services:\n  - {name: side, command: [x], placement: {node: decode}}\n"));
  const auto dec = services_of(on_decode);  // pointers into on_decode
  REQUIRE(dec.size() == 1);
  CHECK(dec[0]->node == plan_of(load8(kPd)).find("decode:0")->node);
  // agg with no agg worker: said, not an empty placement.
  REQUIRE_THROWS_WITH(plan_of(load8(kPd + "services:\n  - {name: side, command: [x], placement: {node: agg}}\n")),
                      Catch::Contains("'side' is placed on agg, and the job has no agg worker"));
}

TEST_CASE("schema 2: a service's readiness port is claimed before the workers', so none of theirs meets it", "[plan][services]") {
  const srt::Recipe plain = load8(kPd);
  const srt::Plan before = plan_of(plain);
  // The first port the allocator gave the prefill worker: a service there now holds it.
  const srt::Process* prefill = before.find("prefill:0");
  REQUIRE(prefill);
  REQUIRE_FALSE(prefill->ports.http.empty());
  const int taken = prefill->ports.http.front();
  const srt::Plan p = plan_of(load8(kPd + "services:\n  - {name: side, command: [x], placement: {node: prefill}, readiness: {port: " +
                                   std::to_string(taken) + "}}\n"));
  const auto svc = services_of(p);
  REQUIRE(svc.size() == 1);
  CHECK(svc[0]->ports.service == std::vector<int>{taken});
  for (const auto& x : p.processes) {
    if (x.node_index != svc[0]->node_index || x.role == srt::Role::service) continue;
    x.ports.each([&](const char* kind, const std::vector<int>& ports) {
      INFO(x.name << " " << kind);
      CHECK(std::find(ports.begin(), ports.end(), taken) == ports.end());
    });
  }
  // The router's public port on the head node is fixed first: a service may not take it.
  const int public_port = srt::default_profile().frontend_port;
  REQUIRE_THROWS_WITH(plan_of(load8(kPd + "services:\n  - {name: side, command: [x], readiness: {port: " +
                                   std::to_string(public_port) + "}}\n")),
                      Catch::Contains("for service side's readiness port is already used by the public frontend port"));
}

TEST_CASE("schema 2: a service is in the Plan's digest, its probe included", "[plan][services]") {
  const std::string a = plan_of(load8(kPd)).digest;
  const std::string b = plan_of(load8(kPd + kUmbp)).digest;
  std::string other = kUmbp;
  other.replace(other.find("host memory registered"), 22, "host memory registerd");
  const std::string c = plan_of(load8(kPd + other)).digest;
  CHECK(a != b);
  CHECK(b != c);
}

TEST_CASE("schema 2: what srt-spank cannot run of a service is a cannot-launch key, and a bad name or pattern is refused",
          "[recipe][services]") {
  const auto unsupported = [](const std::string& extra) {
    return load8(kPd + "services:\n  - {name: s, command: [x], " + extra + "}\n").unsupported_keys;
  };
  const auto contains = [](const std::vector<std::string>& v, const std::string& x) {
    for (const auto& u : v) UNSCOPED_INFO(u);
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  CHECK(contains(unsupported("nodes: 2"), "services[0].nodes"));
  CHECK(contains(unsupported("terminal: true"), "services[0].terminal"));
  CHECK(contains(unsupported("placement: {pool: ray}"), "services[0].placement.pool"));
  CHECK(contains(unsupported("placement: {node: prefill, per: worker}"), "services[0].placement.per=worker"));
  CHECK(contains(unsupported("start: with_workers"), "services[0].start=with_workers"));
  CHECK(contains(unsupported("source: {git: 'https://example.org/x', rev: abc}, placement: {node: head}"), "services[0].source"));
  CHECK(contains(load8(kPd + "services:\n  - {name: s, type: mooncake-store}\n").unsupported_keys, "services[0].type=mooncake-store"));
  CHECK(unsupported("placement: {node: prefill, per: node}").empty());

  CHECK(has_at(errors8(kPd + "services:\n  - {name: a/b, command: [x]}\n"), "services[0].name", "cannot name a service's step", 11));
  CHECK(has_at(errors8(kPd + "services:\n  - {name: s, command: [x]}\n  - {name: s, command: [y]}\n"), "services[1].name",
            "'s' names two services", 12));
  CHECK(has_at(errors8(kPd + "services:\n  - {name: s, command: [x], readiness: {log: {pattern: 'up ('}}}\n"),
            "services[0].readiness.log.pattern", "is not a regular expression", 11));
  CHECK(has_at(errors8(kPd + "services:\n  - name: s\n    command: [x]\n    env: {'A=B': x}\n"), "services[0].env.A=B",
            "is not an environment variable name", 13));
  CHECK(has_at(errors8(kPd + "services:\n  - name: s\n    command: [x]\n    srun_options: {'--mem': 1G}\n"),
            "services[0].srun_options.--mem", "is written with its dashes", 13));
}

TEST_CASE("a v1-layout recipe's services are a schema-2 recipe's, as srtctl 2.x loads them", "[recipe][services]") {
  // InferenceX's dsv4/sglang/mi355x/agentic/disagg-mtp.yaml: a v1 variants file whose override
  // adds the UMBP service.
  const std::string v1 = std::string(srt_test::kMinimalRecipe) + kUmbp;
  const srt::Recipe r = load8(v1);
  CHECK(r.unsupported_keys.empty());
  REQUIRE(r.services.size() == 1);
  CHECK(r.services[0].before_workers);
  const srt::Plan plan = plan_of(r);
  const auto svc = services_of(plan);  // pointers into plan
  REQUIRE(svc.size() == 1);
  CHECK(svc[0]->node == plan.find("prefill:0")->node);
  // The same rules as under schema 2, at the v1 file's lines (services: is line 6).
  CHECK(has_at(errors8(std::string(srt_test::kMinimalRecipe) + "services:\n  - {name: x}\n"), "services[0].command",
            "is required for a generic service", 7));
  CHECK(has_at(errors8(std::string(srt_test::kMinimalRecipe) + "services:\n  - {name: x, command: [x], bogus: 1}\n"),
            "services[0].bogus", "unknown key", 7));
  const auto etcd = load8(std::string(srt_test::kMinimalRecipe) + "services:\n  - {name: etcd, type: etcd}\n").unsupported_keys;
  CHECK(std::find(etcd.begin(), etcd.end(), "services[0].type=etcd") != etcd.end());
}

TEST_CASE("a service's log probe reads complete lines, each once", "[readiness][services]") {
  srt::LogMatcher m("host memory registered");
  // A line arrives in two reads: it is matched once its newline has come, not before.
  CHECK_FALSE(m.feed("starting\nhost memory regis"));
  CHECK(m.offset() == 26);  // the next read starts past every byte fed
  CHECK(m.feed("tered for GPU access\n"));
  srt::LogMatcher port("ready on port [0-9]+$");
  CHECK(port.feed("a\nready on port 5\n"));
  // A log replaced by a new file: its bytes are a new file's, a half line of the old one is gone.
  srt::LogMatcher again("^ready$");
  CHECK_FALSE(again.feed("rea"));
  again.restart();
  CHECK(again.offset() == 0);
  CHECK(again.feed("ready\n"));
  // A line past the probe's 4 KiB window is read up to it: a long line costs no deep recursion.
  srt::LogMatcher longline("ready");
  CHECK_FALSE(longline.feed(std::string(200000, 'x') + "ready\n"));
  CHECK(longline.feed("ready\n"));  // the next line is read as usual
  // A refused pattern (the reader refused the recipe already) never matches.
  CHECK_FALSE(srt::LogMatcher("up (").feed("up (\n"));
  CHECK(srt::log_pattern_error("up (").has_value());
  CHECK_FALSE(srt::log_pattern_error("host memory registered").has_value());
}

}  // namespace test_schema2_services

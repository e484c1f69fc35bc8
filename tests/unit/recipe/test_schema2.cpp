// srt-slurm 2.x `schema: 2` recipes (reference/srt-slurm-v2.md): each mapping onto the v1 model,
// each 2.x rejection, and that diagnostics name the schema-2 key path and its file:line:column.
#include <catch2/catch.hpp>

#include <algorithm>

#include "srt/plan.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_schema2 {

namespace {

// Line numbers below refer to this text (roles.prefill.nodes is line 9, column 5).
const std::string kV2 =
    "schema: 2\n"                                                     // 1
    "name: t\n"                                                       // 2
    "model: {path: m, container: c}\n"                                // 3
    "resources: {gpus_per_node: 8}\n"                                 // 4
    "engine: {type: atom, connector: mooncake}\n"                     // 5
    "frontend: {type: atomesh, enable_multiple_frontends: false}\n"   // 6
    "roles:\n"                                                        // 7
    "  prefill:\n"                                                    // 8
    "    nodes: 1\n"                                                  // 9
    "    workers: 1\n"                                                // 10
    "  decode:\n"                                                     // 11
    "    nodes: 1\n"                                                  // 12
    "    workers: 1\n";                                               // 13

srt::Recipe load(const std::string& text, bool current = false) {
  srt::RecipeOptions o;
  o.default_gpus_per_node = 8;
  o.read.current_schema = current;
  return srt::load_recipe_text(text, "r.yaml", o);
}

std::vector<srt::Diagnostic> errors(const std::string& text, bool current = false) {
  try {
    load(text, current);
  } catch (const srt::Error& e) {
    return e.diagnostics();
  }
  return {};
}

// The diagnostic at `path` whose message contains `text`, checked at line:column.
void expect(const std::vector<srt::Diagnostic>& ds, const std::string& path, int line, int column, const std::string& text,
            const std::string& hint = {}) {
  std::string all;
  for (const auto& d : ds) all += d.str() + "\n";
  INFO("want " << path << " @" << line << ":" << column << " ~ " << text << "\ngot:\n" << all);
  auto it = std::find_if(ds.begin(), ds.end(), [&](const srt::Diagnostic& d) {
    return d.key_path == path && d.message.find(text) != std::string::npos;
  });
  REQUIRE(it != ds.end());
  CHECK(it->file == "r.yaml");
  CHECK(it->mark.line == line);
  CHECK(it->mark.column == column);
  if (!hint.empty()) CHECK(it->hint.find(hint) != std::string::npos);
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

srt::PlanInputs two_nodes() {
  srt::PlanInputs in;
  in.nodes = {"mi355x-01", "mi355x-02"};
  in.job_id = 4242;
  in.recipe_path = "recipes/test.yaml";
  in.addresses = {{"mi355x-01", "10.0.0.1"}, {"mi355x-02", "10.0.0.2"}};
  return in;
}

}  // namespace

TEST_CASE("schema 2: roles and engine become the v1 resources and backend", "[recipe][schema2]") {
  const srt::Recipe r = load(kV2 + "    gpus: 8\n    env: {A: '1'}\n    args: {block-size: 16}\n");
  CHECK(r.resources.prefill_nodes == 1);
  CHECK(r.resources.decode_nodes == 1);
  CHECK(r.resources.prefill_workers == 1);
  CHECK(r.resources.decode_workers == 1);
  CHECK(r.resources.gpus_per_decode == 8);
  CHECK(r.backend.type == "atom");
  CHECK(r.backend.connector == "mooncake");
  CHECK(r.backend.decode_environment == srt::EnvList{{"A", "1"}});
  CHECK(r.backend.decode_config == srt::Json{{"block-size", 16}});
  CHECK(r.source.written_path("resources.prefill_nodes") == "roles.prefill.nodes");
  CHECK(r.source.written_path("backend.atom_config.decode.block-size") == "roles.decode.args.block-size");
  CHECK(r.source.mark_of("resources.prefill_nodes").line == 9);  // the v2 node's mark, copied
  CHECK(r.unsupported_keys.empty());
}

TEST_CASE("schema 2: the ATOM recipe makes the same Plan as its v1 original", "[recipe][schema2]") {
  const srt::Recipe v1 = srt::load_recipe_file(SRT_SOURCE_DIR "/tests/fixtures/recipes/v1/atom-disagg-1p1d-tp8-8k1k.yaml");
  const srt::Recipe v2 = srt::load_recipe_file(SRT_SOURCE_DIR "/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");
  CHECK(v2.unsupported_keys.empty());
  const srt::Profile profile = srt::default_profile();
  CHECK(srt::node_demand(v2, profile) == 2);
  const srt::Plan a = srt::make_plan(v1, profile, two_nodes());
  const srt::Plan b = srt::make_plan(v2, profile, two_nodes());
  CHECK(srt::plan_to_json(a) == srt::plan_to_json(b));
  CHECK(srt::plan_digest(a) == srt::plan_digest(b));
  CHECK(a.digest == b.digest);
}

TEST_CASE("schema 2: decode.nodes colocate is decode_nodes 0 and needs gpus on both roles", "[recipe][schema2]") {
  const std::string colocate = replace(kV2, "  decode:\n    nodes: 1\n", "  decode:\n    nodes: colocate\n");
  expect(errors(colocate), "roles.decode.nodes", 12, 5, "colocate needs gpus on both", "roles.prefill.gpus");
  const std::string ok = replace(replace(colocate, "    workers: 1\n  decode:", "    workers: 1\n    gpus: 4\n  decode:"),
                                 "nodes: colocate\n    workers: 1\n", "nodes: colocate\n    workers: 1\n    gpus: 4\n");
  const srt::Recipe r = load(ok);
  CHECK(r.resources.decode_nodes == 0);
  CHECK(r.resources.decode_nodes_given);
  CHECK(r.resources.disaggregated());
  CHECK(srt::node_demand(r, srt::default_profile()) == 1);
}

TEST_CASE("schema 2: role sizes are refused as 2.x refuses them", "[recipe][schema2]") {
  expect(errors(replace(kV2, "  decode:\n    nodes: 1\n", "  decode:\n    nodes: 0\n")), "roles.decode.nodes", 12, 5,
         "must be a positive number or colocate", "write colocate");
  expect(errors(replace(kV2, "  prefill:\n    nodes: 1\n", "  prefill:\n    nodes: colocate\n")), "roles.prefill.nodes", 9, 5,
         "colocate is only for roles.decode.nodes");
  expect(errors(replace(kV2, "  prefill:\n    nodes: 1\n", "  prefill:\n    nodes: two\n")), "roles.prefill.nodes", 9, 5,
         "must be a positive number, got 'two'");
  expect(errors(replace(kV2, "  prefill:\n", "  prefil:\n")), "roles.prefil", 8, 3, "unknown key 'prefil'", "did you mean 'prefill'?");
  expect(errors(replace(kV2, "    nodes: 1\n    workers: 1\n  decode", "    node: 1\n    workers: 1\n  decode")),
         "roles.prefill.node", 9, 5, "unknown key 'node'", "did you mean 'nodes'?");
  expect(errors(kV2 + "    engine: sglang\n"), "roles.decode.engine", 14, 5, "differs from the recipe's engine 'atom'");
  expect(errors(replace(kV2, "resources: {gpus_per_node: 8}", "resources: {gpus_per_node: 8, prefill_nodes: 1}")),
         "resources.prefill_nodes", 4, 31, "cannot be combined with roles:", "write roles.prefill.nodes");
}

TEST_CASE("schema 2: rules on v1 fields name the schema-2 key the user wrote", "[recipe][schema2]") {
  // ATOM endpoints must fit one node: a rule on resources.gpus_per_prefill.
  expect(errors(replace(kV2, "    workers: 1\n  decode:", "    workers: 1\n    gpus: 16\n  decode:")), "roles.prefill.gpus", 11, 5,
         "ATOM currently requires each logical endpoint to fit on one Slurm node");
  // srtctl-managed ATOM flags: a rule on backend.atom_config.decode.<flag>.
  expect(errors(kV2 + "    args:\n      tp: 8\n"), "roles.decode.args.tp", 15, 7, "cannot override srtctl-managed argument");
  // A v1 flag check (the engine's flag table) on what roles.<role>.args became.
  expect(errors(kV2 + "    args:\n      x: [{a: 1}]\n"), "roles.decode.args.x[0]", 15, 11, "a flag list holds plain values only");
  // A mapping is one JSON argument (InferenceX's dsv41flash vLLM recipe: speculative-config).
  CHECK(errors(kV2 + "    args:\n      speculative-config: {method: dspark, num_speculative_tokens: 5}\n").empty());
  // The v1 check of the engine knobs, under engine:.
  expect(errors(replace(kV2, "connector: mooncake", "connector: nixl")), "engine.connector", 5, 22, "is not one of: mooncake");
}

TEST_CASE("schema 2: engine as a string, and engine-role conflicts", "[recipe][schema2]") {
  const std::string sglang = replace(replace(kV2, "engine: {type: atom, connector: mooncake}", "engine: sglang"),
                                     "{type: atomesh, enable_multiple_frontends: false}", "{type: sglang-router}");
  const srt::Recipe r = load(sglang);
  CHECK(r.backend.type == "sglang");
  // Planned since the SGLang adapters: validate no longer lists them as what launch refuses.
  CHECK_FALSE(has(r.unsupported_keys, "engine=sglang"));
  CHECK_FALSE(has(r.unsupported_keys, "frontend.type=sglang-router"));
  expect(errors(kV2 + "backend: {type: vllm}\n"), "engine.type", 5, 10, "engine 'atom' conflicts with backend.type 'vllm'");
}

TEST_CASE("schema 2: frontend.type sglang is a direct worker, not the router", "[recipe][schema2]") {
  const std::string direct = replace(replace(kV2, "engine: {type: atom, connector: mooncake}", "engine: sglang"),
                                     "{type: atomesh, enable_multiple_frontends: false}", "{type: sglang}");
  expect(errors(direct), "frontend.type", 6, 12, "direct worker", "sglang-router");
  const srt::Recipe agg = load(
      "schema: 2\nname: t\nmodel: {path: m, container: c}\nengine: sglang\nfrontend: {type: sglang}\n"
      "roles: {agg: {nodes: 1, workers: 1}}\n");
  CHECK(agg.frontend.type != "sglang");  // not v1's sglang router
  CHECK_FALSE(has(agg.unsupported_keys, "frontend.type=sglang"));  // planned: the direct frontend
  // A v1 recipe keeps the old meaning (#436).
  const srt::Recipe v1 = load("name: t\nmodel: {path: m, container: c}\nfrontend: {type: sglang}\n");
  CHECK(v1.frontend.type == "sglang");
}

TEST_CASE("schema 2: placements become the dedicated-node flags", "[recipe][schema2]") {
  const srt::Recipe r = load(kV2 + "benchmark: {type: manual, placement: {node: dedicated}}\n");
  CHECK(r.benchmark.client_dedicated_node);
  CHECK(srt::node_demand(r, srt::default_profile()) == 3);
  const srt::Recipe f = load(replace(kV2, "enable_multiple_frontends: false}", "enable_multiple_frontends: false, placement: {node: dedicated}}"));
  CHECK(f.frontend.dedicated_node);
  CHECK(srt::node_demand(f, srt::default_profile()) == 3);
  const srt::Recipe last = load(kV2 + "benchmark: {placement: {node: last_decode}}\n");
  CHECK(srt::node_demand(last, srt::default_profile()) == 2);  // first_decode/last_decode add no node
  CHECK(has(last.unsupported_keys, "benchmark.placement.node=last_decode"));
  expect(errors(replace(kV2, "enable_multiple_frontends: false}", "enable_multiple_frontends: false, placement: {}}")),
         "frontend.placement.node", 6, 61, "is required");
  expect(errors(kV2 + "benchmark: {placement: {node: head, where: x}}\n"), "benchmark.placement.where", 14, 37, "unknown key 'where'");
  expect(errors(kV2 + "benchmark: {client_dedicated_node: true, placement: {node: head}}\n"), "benchmark.client_dedicated_node", 14, 13,
         "cannot be combined with benchmark.placement");
  expect(errors(kV2 + "infra: {placement: dedicated}\n"), "infra.placement", 14, 9, "is not a thing in srt-slurm 2.x");
}

TEST_CASE("schema 2: services", "[recipe][schema2]") {
  const std::string infra =
      "services:\n"                                                                     // 14
      "  - {name: etcd, type: etcd, placement: {node: dedicated}}\n"                    // 15
      "  - {name: nats, type: nats, placement: {node: dedicated}, options: {max_payload_mb: 64}}\n";  // 16
  const srt::Recipe r = load(kV2 + infra);
  CHECK(r.infra_dedicated_node);
  CHECK(srt::node_demand(r, srt::default_profile()) == 3);
  CHECK(r.unsupported_keys.empty());
  expect(errors(kV2 + replace(infra, "type: nats, placement: {node: dedicated}", "type: nats, placement: {node: infra}")),
         "services[1].placement.node", 16, 42, "etcd and nats disagree on dedicated");
  const srt::Recipe g = load(kV2 + "services:\n  - {name: umbp, command: [umbp], placement: {node: prefill}}\n");
  CHECK(g.unsupported_keys.empty());  // a generic service runs (test_schema2_services.cpp)
  REQUIRE(g.services.size() == 1);
  CHECK(g.services[0].node == "prefill");
  CHECK(srt::node_demand(g, srt::default_profile()) == 2);
  expect(errors(kV2 + "services:\n  - {name: x, command: [x], placement: {node: dedicated}}\n"), "services[0].placement.node", 15, 41,
         "dedicated is only for etcd, nats and mooncake-master");
  expect(errors(kV2 + "services:\n  - {name: x, command: [x], readiness: {port: 1, log: {pattern: up}}}\n"), "services[0].readiness",
         15, 29, "exactly one probe");
  expect(errors(kV2 + "services:\n  - {type: etcd}\n"), "services[0].name", 15, 5, "is required");
  expect(errors(kV2 + "services:\n  - {name: x}\n"), "services[0].command", 15, 5, "is required for a generic service");
  const std::string vllm =
      "schema: 2\nname: t\nmodel: {path: m, container: c}\nengine: vllm\nroles: {agg: {nodes: 1}}\n"
      "services:\n  - {name: m1, type: mooncake-master}\n  - {name: m2, type: mooncake-master}\n";
  expect(errors(vllm), "services[1]", 8, 5, "is a second mooncake-master service");
  const srt::Recipe mc = load("schema: 2\nname: t\nmodel: {path: m, container: c}\nengine: vllm\nroles: {agg: {nodes: 1}}\n"
                              "services:\n  - {name: m1, type: mooncake-master, options: {store_config: {mode: x}}}\n");
  CHECK(has(mc.unsupported_keys, "services[0]"));  // v1's backend.mooncake_kv_store: tier 2
}

TEST_CASE("schema 2: detection of the layout", "[recipe][schema2]") {
  expect(errors(replace(kV2, "schema: 2", "schema: 3")), "schema", 1, 1, "schema 3 is not supported");
  expect(errors(replace(kV2, "schema: 2", "schema: true")), "schema", 1, 1, "expected a whole number");
  // engine:/roles: without schema: load as 2.x does (its normalizers run regardless).
  CHECK(load(replace(kV2, "schema: 2\n", "")).resources.decode_nodes == 1);
  // schema: 1 says v1: roles is then a mistake.
  expect(errors(replace(kV2, "schema: 2", "schema: 1")), "roles", 7, 1, "2.0 layout, but the recipe says schema: 1");
}

TEST_CASE("schema 2: --current-schema refuses v1 and v1-only keys", "[recipe][schema2]") {
  CHECK(load(kV2, true).resources.prefill_nodes == 1);
  const auto v1 = errors("name: t\nmodel: {path: m, container: c}\nresources: {agg_nodes: 1}\n", true);
  expect(v1, "", 1, 1, "schema 1 recipes no longer load");
  expect(v1, "resources.agg_nodes", 3, 13, "is a v1 key", "write roles.agg.nodes");
  const auto mixed = errors(kV2 + "dynamo: {version: '1.0'}\ninfra: {etcd_nats_dedicated_node: true}\n", true);
  expect(mixed, "dynamo.version", 14, 10, "--current-schema refuses it", "dynamo.source.pypi");
  expect(mixed, "infra", 15, 1, "--current-schema refuses it", "services:");
  // Without the flag, v2.2.1 accepts the v1 spelling beside the new one.
  CHECK(load(kV2 + "infra: {etcd_nats_dedicated_node: true}\n").infra_dedicated_node);
}

TEST_CASE("v1 keys srtctl v2.2.1 knows are known", "[recipe][schema2]") {
  const srt::Recipe r = load(
      "name: t\nmodel: {path: m, container: c}\nbackend: {type: atom}\nfrontend: {type: atomesh}\n"
      "dynamo: {request_plane: nats}\nbenchmark: {tokenizer_mode: auto, aiperf_server_metrics: true}\n");
  CHECK(r.name == "t");
}

TEST_CASE("the JSON Schema of layout 2", "[recipe][schema2]") {
  const srt::Json s = srt::recipe_json_schema(2);
  CHECK(s["$id"] == "https://srt-spank/schema/recipe-v2.json");
  CHECK(s["properties"]["roles"]["properties"].contains("agg"));
  CHECK(s["properties"]["services"]["type"] == "array");
  CHECK(s["properties"]["services"]["items"]["required"] == srt::Json::parse(R"(["name"])"));
  const auto& engine = s["properties"]["engine"]["oneOf"];
  CHECK(engine.back()["type"] == "string");
  CHECK(srt::recipe_json_schema(1)["$id"] == "https://srt-spank/schema/recipe-v1.json");
  CHECK(srt::recipe_json_schema() == srt::recipe_json_schema(1));
}

TEST_CASE("schema 2: kv_events and sidecar per role", "[recipe][schema2]") {
  const std::string vllm =
      "schema: 2\nname: t\nmodel: {path: m, container: c}\nengine: vllm\n"   // 1-4
      "roles:\n"                                                             // 5
      "  prefill: {nodes: 1, workers: 1, kv_events: true, sidecar: true}\n"  // 6
      "  decode: {nodes: 1, workers: 1, sidecar: false}\n";                  // 7
  const auto ds = errors(vllm + "backend: {kv_events_config: true}\n");
  expect(ds, "roles.prefill.kv_events", 6, 35, "cannot be combined with a boolean backend.kv_events_config");
  expect(ds, "roles.decode.sidecar", 7, 34, "disagrees with roles.prefill.sidecar");
  // ATOM's engine-wide switch is what roles.<role>.kv_events: true means for it.
  CHECK(load(kV2 + "    kv_events: true\n").backend.enable_kv_events);
}

TEST_CASE("schema 2: UNCONFIRMED 2.x rules warn instead of refusing", "[recipe][schema2]") {
  const srt::Recipe r = load(kV2 +
                             "services:\n  - {name: etcd, type: etcd, placement: {node: dedicated}}\n"
                             "  - {name: nats, type: nats, placement: {node: dedicated}}\n"
                             "telemetry: {enabled: true}\n");
  bool warned = false;
  for (const auto& w : r.source.warnings) warned |= w.key_path == "telemetry" && w.message.find("UNCONFIRMED") != std::string::npos;
  CHECK(warned);
  CHECK_FALSE(has(r.unsupported_keys, "telemetry"));  // GPU power runs
}

// The normalizer checks only what roles wrote into backend (the engine's keys were checked as
// engine.*), and falls back to the whole walk for a key the engine does not have: either way each
// problem is reported once, at the line the user wrote.
TEST_CASE("schema 2: role parts are checked against the engine once, at their own line", "[recipe][schema2]") {
  const std::string mocker =
      "schema: 2\nname: t\nmodel: {path: m, container: c}\nengine: mocker\nfrontend: {type: dynamo}\n"  // 1-5
      "roles:\n"                                                                                       // 6
      "  prefill: {nodes: 1, workers: 1, kv_events: true}\n"                                          // 7
      "  decode: {nodes: 1, workers: 1}\n";                                                          // 8
  const auto ds = errors(mocker);
  expect(ds, "roles.prefill.kv_events", 7, 35, "is not a key of backend.type 'mocker'");
  CHECK(ds.size() == 1);
  // A bad flag under args: one error, named by its schema-2 path; the engine's own bad key too.
  const auto flags = errors(kV2 + "    args: {block-size: [[16]]}\n");
  expect(flags, "roles.decode.args.block-size[0]", 14, 25, "a flag list holds plain values only");
  const auto bad_engine = errors(std::string(kV2).replace(kV2.find("connector: mooncake"), 19, "connector: nixl"));
  expect(bad_engine, "engine.connector", 5, 22, "is not one of");
  CHECK(std::count_if(bad_engine.begin(), bad_engine.end(), [](const srt::Diagnostic& d) { return d.key_path == "engine.connector"; }) == 1);
}

// srtctl v2.18's roles.<role>.restart: known, checked where it is written, and kept by role as
// Recipe::per_role.restart (the launcher supervises by it); never relaunches nothing and is not kept.
TEST_CASE("schema 2: roles.<role>.restart is srtctl's policy, checked at its line, kept by role", "[recipe][schema2]") {
  CHECK(load(kV2 + "    restart: never\n").per_role.restart.empty());
  CHECK(load(kV2 + "    restart: {policy: never, max_restarts: 5}\n").per_role.restart.empty());
  const srt::Recipe on_failure = load(kV2 + "    restart: on-failure\n");
  CHECK(on_failure.unsupported_keys.empty());
  REQUIRE(on_failure.per_role.restart.count("decode") == 1);
  CHECK(on_failure.per_role.restart.count("prefill") == 0);
  CHECK(on_failure.per_role.restart.at("decode").when == srt::RestartWhen::on_failure);
  CHECK(on_failure.per_role.restart.at("decode").max_restarts == 3);  // srtctl's defaults
  CHECK(on_failure.per_role.restart.at("decode").backoff_seconds == 10);
  const srt::Recipe always = load(kV2 + "    restart: {policy: always, max_restarts: 1, backoff_seconds: 1.5}\n");
  REQUIRE(always.per_role.restart.count("decode") == 1);
  CHECK(always.per_role.restart.at("decode").when == srt::RestartWhen::always);
  CHECK(always.per_role.restart.at("decode").max_restarts == 1);
  CHECK(always.per_role.restart.at("decode").backoff_seconds == 1.5);

  expect(errors(kV2 + "    restart: sometimes\n"), "roles.decode.restart", 14, 5, "expected never, on-failure or always");
  const auto ds = errors(kV2 + "    restart: {policy: on-failure, max_restarts: -1, backof_seconds: 2}\n");
  expect(ds, "roles.decode.restart.max_restarts", 14, 35, "a whole number of 0 or more");
  expect(ds, "roles.decode.restart.backof_seconds", 14, 53, "unknown key 'backof_seconds'", "backoff_seconds");
  expect(errors(kV2 + "    restart: [on-failure]\n"), "roles.decode.restart", 14, 5, "or a mapping");
}

}  // namespace test_schema2

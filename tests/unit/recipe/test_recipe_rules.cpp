// Rules that need more than one file to show: all errors at once, tier-2 keys, the JSON Schema.
#include <catch2/catch.hpp>

#include <algorithm>

#include "minimal_recipe.hpp"
#include "srt/recipe.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_recipe_rules {

namespace {

const std::string kBase = srt_test::kMinimalRecipe;

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

srt::Recipe load(const std::string& text, int gpn = 8) {
  srt::RecipeOptions o;
  o.default_gpus_per_node = gpn;
  return srt::load_recipe_text(text, "r.yaml", o);
}

}  // namespace

TEST_CASE("every problem is reported and not just the first", "[recipe]") {
  try {
    load("name: 1\nmodel: {path: m}\nresources: {prefil_nodes: 1}\nbackend: {type: atom, connector: nixl}\n"
         "benchmark: {type: custom}\nslurm: {time_limit: 2:00:00}\n");
    FAIL("accepted");
  } catch (const srt::Error& e) {
    std::vector<std::string> paths;
    for (const auto& d : e.diagnostics()) paths.push_back(d.key_path);
    CHECK(has(paths, "name"));
    CHECK(has(paths, "model.container"));
    CHECK(has(paths, "resources.prefil_nodes"));
    CHECK(has(paths, "backend.connector"));
    CHECK(has(paths, "benchmark.command"));
    CHECK(has(paths, "slurm.time_limit"));
    CHECK(has(paths, "backend.type"));  // atom without atomesh
    CHECK(e.diagnostics().size() >= 7);
    for (const auto& d : e.diagnostics()) CHECK(d.mark.line > 0);
  }
}

TEST_CASE("setup_script is a name in the cluster's script directory, never a path", "[recipe]") {
  CHECK(load(kBase + "setup_script: pip-runtime-deps.sh\n").setup_script == "pip-runtime-deps.sh");
  for (const char* bad : {"../x.sh", "/etc/x.sh", "a/b.sh", "..", "."}) {
    INFO(bad);
    try {
      load(kBase + "setup_script: '" + bad + "'\n");
      FAIL("accepted");
    } catch (const srt::Error& e) {
      CHECK(e.diagnostics().at(0).key_path == "setup_script");
      CHECK_THAT(e.diagnostics().at(0).message, Catch::Contains("is not a file name"));
    }
  }
}

TEST_CASE("keys srtctl knows and srt-spank cannot launch yet are accepted and listed", "[recipe]") {
  auto r = load(kBase + "sweep: {c: [1, 2]}\nprofiling: {type: torch}\nsetup_script: s.sh\nenable_config_dump: false\n"
                        "telemetry: {enabled: true}\n");
  CHECK(has(r.unsupported_keys, "sweep"));
  CHECK(has(r.unsupported_keys, "profiling.type=torch"));
  CHECK_FALSE(has(r.unsupported_keys, "setup_script"));  // srt-spank runs it (the profile's setup_scripts_dir)
  CHECK_FALSE(has(r.unsupported_keys, "telemetry"));  // GPU power runs (the exporter, the collector)
  CHECK_FALSE(has(r.unsupported_keys, "enable_config_dump"));  // false changes nothing

  auto none = load(kBase + "profiling: {type: none}\n");
  CHECK(none.unsupported_keys.empty());

  auto sg = load("name: s\nmodel: {path: m, container: c}\nresources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}\n"
                 "backend: {type: sglang, sglang_config: {prefill: {tp-size: 4}}}\n");
  CHECK_FALSE(has(sg.unsupported_keys, "backend.type=sglang"));  // planned since the SGLang adapter
  auto vl = load("name: v\nmodel: {path: m, container: c}\nbackend: {type: vllm}\n");
  CHECK_FALSE(has(vl.unsupported_keys, "backend.type=vllm"));  // planned since the vLLM adapter
  auto tr = load("name: t\nmodel: {path: m, container: c}\nbackend: {type: trtllm}\n");
  CHECK(has(tr.unsupported_keys, "backend.type=trtllm"));
  CHECK(has(sg.unsupported_keys, "frontend.enable_multiple_frontends"));  // srtctl's default: nginx + routers
}

// srtctl's schema: observability.enabled and telemetry.enabled default to false, and tachometer
// collects unless tachometer.enabled is false; InferenceX's AgentX recipes write every switch off.
TEST_CASE("observability and telemetry blocks that switch everything off are inert", "[recipe]") {
  auto off = load(kBase + "observability: {enabled: false, tachometer: {enabled: false}}\n"
                          "telemetry: {enabled: false, storage_subdir: power}\n");
  CHECK_FALSE(has(off.unsupported_keys, "observability"));
  CHECK_FALSE(has(off.unsupported_keys, "telemetry"));
  CHECK(off.unsupported_keys.empty());

  // Anything left on is still what srt-spank cannot launch yet.
  auto otel = load(kBase + "observability: {enabled: false, enable_otel: true, tachometer: {enabled: false}}\n");
  CHECK(has(otel.unsupported_keys, "observability"));
  auto tacho = load(kBase + "observability: {enabled: false, tachometer: {collect_interval_ms: 500}}\n");
  CHECK(has(tacho.unsupported_keys, "observability"));
  auto master = load(kBase + "observability: {enabled: true, tachometer: {enabled: false}}\n");
  CHECK(has(master.unsupported_keys, "observability"));
  // GPU power runs; its CPU legs do not (and say so).
  auto power = load(kBase + "telemetry: {enabled: true}\n");
  CHECK(power.unsupported_keys.empty());
  auto cpu = load(kBase + "telemetry: {enabled: true, cpu_power_exporter: {port: 9100}}\n");
  CHECK(has(cpu.unsupported_keys, "telemetry.cpu_power_exporter"));
  auto spelled = load(kBase + "telemetry: {enabled: \"false\"}\nobservability: {tachometer: {enabled: no}}\n");
  CHECK(spelled.unsupported_keys.empty());
}

TEST_CASE("fit rules use the profile's gpus_per_node when the recipe has none", "[recipe]") {
  const std::string text =
      "name: t\nmodel: {path: m, container: c}\n"
      "resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1, gpus_per_prefill: 8}\n"
      "backend: {type: atom}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n";
  CHECK_NOTHROW(load(text, 8));
  CHECK_THROWS_WITH(load(text, 4), Catch::Contains("fit on one Slurm node"));
  CHECK_NOTHROW(load(text, 0));  // unknown: left to the profile-aware check
  // srtctl's derivation: 1 node x 8 GPUs // 3 workers = 2 GPUs each.
  auto r = load("name: t\nmodel: {path: m, container: c}\n"
                "resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 3, decode_workers: 1}\n"
                "backend: {type: atom}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n");
  CHECK(r.resources.gpus_per_worker(srt::WorkerMode::prefill, 8) == 2);
  CHECK_THROWS_WITH(load("name: t\nmodel: {path: m, container: c}\n"
                         "resources: {prefill_nodes: 1, decode_nodes: 1, prefill_workers: 9, decode_workers: 1}\n"
                         "backend: {type: atom}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n"),
                    Catch::Contains("leave no GPU per worker"));
}

TEST_CASE("warnings for booleans in the environment and KV events nobody reads", "[recipe]") {
  auto r = load(kBase + "environment: {FLAG: yes}\n");
  CHECK(r.environment[0].second == "True");
  REQUIRE(!r.source.warnings.empty());
  CHECK(r.source.warnings[0].key_path == "environment.FLAG");
  auto kv = load("name: t\nmodel: {path: m, container: c}\n"
                 "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}\n"
                 "backend: {type: atom, enable_kv_events: true}\nfrontend: {type: atomesh, enable_multiple_frontends: false}\n");
  CHECK(kv.backend.enable_kv_events);
  CHECK(kv.source.warnings.at(0).key_path == "backend.enable_kv_events");
}

TEST_CASE("matched rails with a list of NICs are refused: ATOM needs one primary HCA per rank", "[recipe]") {
  const std::string pd = "name: t\nmodel: {path: m, container: c}\n"
                         "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}\n"
                         "frontend: {type: atomesh, enable_multiple_frontends: false}\n"
                         "backend: {type: atom, connector: mooncake, mooncake_protocol: rdma, ";
  CHECK_THROWS_WITH(load(pd + "prefill_environment: {ATOM_MOONCAKE_MATCHED_RAILS: auto, ATOM_MOONCAKE_IB_DEVICE: 'rdma0, rdma1'}}\n"),
                    Catch::Contains("backend.prefill_environment.ATOM_MOONCAKE_IB_DEVICE") &&
                        Catch::Contains("names 2 NICs with ATOM_MOONCAKE_MATCHED_RAILS set"));
  // The recipe's environment reaches every worker, over the role's.
  CHECK_THROWS_WITH(load(pd + "decode_environment: {ATOM_MOONCAKE_MATCHED_RAILS: auto}}\n"
                              "environment: {ATOM_MOONCAKE_IB_DEVICE: 'ionic_0,ionic_1,ionic_0'}\n"),
                    Catch::Contains("environment.ATOM_MOONCAKE_IB_DEVICE"));
  // One NIC, no list, or the rails off: accepted.
  CHECK_NOTHROW(load(pd + "prefill_environment: {ATOM_MOONCAKE_MATCHED_RAILS: auto, ATOM_MOONCAKE_IB_DEVICE: 'rdma0,rdma0'}}\n"));
  CHECK_NOTHROW(load(pd + "prefill_environment: {ATOM_MOONCAKE_MATCHED_RAILS: auto}}\n"));
  CHECK_NOTHROW(load(pd + "prefill_environment: {ATOM_MOONCAKE_MATCHED_RAILS: '', ATOM_MOONCAKE_IB_DEVICE: 'rdma0,rdma1'}}\n"));
  // ATOM takes "auto" or rail names: "0" is not off there, it is a NIC that does not exist.
  for (const char* off : {"'0'", "'false'", "'Off'"}) {
    INFO(off);
    CHECK_THROWS_WITH(load(pd + "prefill_environment: {ATOM_MOONCAKE_MATCHED_RAILS: " + off + "}}\n"),
                      Catch::Contains("backend.prefill_environment.ATOM_MOONCAKE_MATCHED_RAILS") &&
                          Catch::Contains("not as off") && Catch::Contains("leave ATOM_MOONCAKE_MATCHED_RAILS out"));
  }
}

TEST_CASE("host_setup: read as srtctl's HostSetupConfig, a blank command refused with its index", "[recipe]") {
  const srt::Recipe r = load(kBase + "host_setup: {commands: [a, b], teardown: [c], nodes: workers, ignore_failure: true, "
                                     "timeout_seconds: 60}\n");
  CHECK(r.host_setup.given);
  CHECK(r.host_setup.commands == std::vector<std::string>{"a", "b"});
  CHECK(r.host_setup.teardown == std::vector<std::string>{"c"});
  CHECK(r.host_setup.nodes == "workers");
  CHECK(r.host_setup.ignore_failure);
  CHECK(r.host_setup.timeout_seconds == 60);
  CHECK_FALSE(load(kBase).host_setup.given);
  // An empty block is written, and opts out of the profile's default.
  const srt::Recipe none = load(kBase + "host_setup: {commands: []}\n");
  CHECK(none.host_setup.given);
  CHECK_FALSE(none.host_setup.enabled());
  // Joined with &&, a blank command is a syntax error on every node: refused where it is.
  CHECK_THROWS_WITH(load(kBase + "host_setup: {commands: [a, '  ']}\n"),
                    Catch::Contains("host_setup.commands[1]: is empty"));
  CHECK_THROWS_WITH(load(kBase + "host_setup: {commands: [a], teardown: ['']}\n"),
                    Catch::Contains("host_setup.teardown[0]: is empty"));
  CHECK_THROWS_WITH(load(kBase + "host_setup: {commands: [a], nodes: head}\n"), Catch::Contains("is not one of: all, workers"));
  CHECK_THROWS_WITH(load(kBase + "host_setup: {commands: [a], timeout_seconds: 0}\n"), Catch::Contains("must be at least 1"));
}

TEST_CASE("the JSON Schema comes from the same table", "[recipe]") {
  const srt::Json s = srt::recipe_json_schema();
  CHECK(s["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  CHECK(s["additionalProperties"] == false);
  // No backend, or one without `type`, is SGLang, as srtctl reads it.
  CHECK(s["required"] == srt::Json::parse(R"(["name","model"])"));
  CHECK(s["properties"]["sweep"]["x-srt-tier"] == "unsupported");
  const auto& variants = s["properties"]["backend"]["oneOf"];
  REQUIRE(variants.size() == 7);  // atom sglang vllm trtllm mocker tilert tokenspeed
  CHECK(variants[0]["properties"]["type"]["const"] == "atom");
  CHECK(variants[0]["properties"].contains("atom_config"));
  for (const auto& v : variants) {
    INFO(v["properties"]["type"]);
    const bool needs_type = v.contains("required") && v["required"].dump().find("\"type\"") != std::string::npos;
    CHECK(needs_type == (v["properties"]["type"]["const"] != "sglang"));
  }
  CHECK_FALSE(variants[1]["properties"].contains("atom_config"));
  CHECK(s["properties"]["resources"]["properties"]["gpus_per_node"]["minimum"] == 1);
}

}  // namespace test_recipe_rules

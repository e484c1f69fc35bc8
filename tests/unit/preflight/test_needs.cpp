// What each role needs from its image, the probe's arguments, the probe's JSON read back, and
// one line per missing piece (with the role, the node and what to do).
#include <catch2/catch.hpp>

#include "srt/error.hpp"
#include "srt/preflight.hpp"
#include "srt/files.hpp"
#include "srt/variants.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_needs {

using namespace srt;

namespace {

Recipe lab_recipe() { return load_recipe_file(SRT_SOURCE_DIR "/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"); }

// What the probe says on a machine without ATOM (this one): nothing found.
Json bare_probe() {
  return Json::parse(R"({
    "probe_version": 1, "python": {"executable": "/usr/bin/python3", "version": "3.11.2"},
    "engine": {"module": "atom.entrypoints.openai_server", "found": false,
               "error": "no module named 'atom' for /usr/bin/python3"},
    "mooncake": {"found": false, "error": "ModuleNotFoundError: No module named 'mooncake'", "version": null},
    "router": {"command": "atomesh", "path": null, "version": null},
    "files": {"/infmax-workspace/utils/bench_serving/benchmark_serving.py": false},
    "frameworks": {}, "rocm_version": null, "gpus": {"count": 0, "model": null},
    "rdma": {"dev_infiniband": false, "devices": [], "provider_configs": [], "provider_libs": [],
             "memlock": 8388608, "gid_index": 3, "gid_ok": []},
    "model": {"repo": "deepseek-ai/DeepSeek-V4-Pro", "revision": null}})");
}

// A variant of the SGLang lab twin (base: direct; override_tp8_dpa: behind sglang-router).
Recipe sglang_twin(const std::string& selector) {
  const std::string path = SRT_SOURCE_DIR "/recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml";
  RecipeRef ref{path, selector, path + ":" + selector};
  auto sources = open_recipe_text(read_text_file(path, 1 << 20), ref, {});
  REQUIRE(sources.size() == 1);
  return load_recipe_source(std::move(sources[0]), {});
}

}  // namespace

TEST_CASE("an SGLang recipe's roles are probed for SGLang and its router, not ATOM's") {
  Profile p = default_profile();
  p.sglang_command = {"env", "PYTHONPATH=/x/pkg", "/usr/bin/python3", "-m", "sglang.launch_server"};
  const Recipe direct = sglang_twin("base");
  const PreflightNeeds agg = preflight_needs(direct, p, "agg");
  CHECK(agg.engine);
  CHECK_FALSE(agg.mooncake);  // aggregated: no KV transfer
  CHECK(agg.engine_key == "sglang_command");
  CHECK(probe_interpreter(&direct, p) == std::vector<std::string>{"env", "PYTHONPATH=/x/pkg", "/usr/bin/python3"});
  CHECK(probe_arguments(&direct, p, {agg}) ==
        std::vector<std::string>{"--engine-module", "sglang.launch_server", "--model-repo", "deepseek-ai/DeepSeek-R1-0528"});

  const Recipe routed = sglang_twin("override_tp8_dpa");
  const PreflightNeeds router = preflight_needs(routed, p, "router");
  CHECK(router.router_key == "sglang_router_command");
  CHECK(probe_arguments(&routed, p, {router}) ==
        std::vector<std::string>{"--engine-module", "sglang.launch_server", "--router-module", "sglang_router.launch_router",
                                 "--model-repo", "deepseek-ai/DeepSeek-R1-0528"});
  Json probe = bare_probe();
  probe["router"] = {{"command", "python -m sglang_router.launch_router"}, {"path", nullptr}, {"version", nullptr}};
  probe["engine"] = {{"module", "sglang.launch_server"}, {"found", false}, {"error", "no module named 'sglang' for /usr/bin/python3"}};
  const Fingerprint f = fingerprint_from_probe(probe, "here");
  CHECK(missing_pieces(f, router) ==
        std::vector<std::string>{"router: the router module sglang_router.launch_router is not there for /usr/bin/python3; "
                                 "the profile's sglang_router_command cannot start"});
  const auto lines = missing_pieces(f, agg);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("agg: the engine module sglang.launch_server is not there for /usr/bin/python3"));
  CHECK_THAT(lines[0], Catch::EndsWith("the profile's sglang_command cannot start"));
}

TEST_CASE("the console line says what each role needs, as found") {
  Json probe = bare_probe();
  probe["engine"] = {{"module", "sglang.launch_server"}, {"found", true}, {"version", "0.5.20"}};
  probe["router"] = {{"command", "python -m sglang_router.launch_router"}, {"path", "/x/launch_router.py"}, {"version", "0.3.2"}};
  probe["files"] = {{"/infmax-workspace/utils/bench_serving/benchmark_serving.py", true}};
  Fingerprint f = fingerprint_from_probe(probe, "here");
  f.node = "node1";
  const Recipe routed = sglang_twin("override_tp8_dpa");
  const Profile p = default_profile();
  CHECK(found_line(f, preflight_needs(routed, p, "agg")) == "agg on node1: sglang.launch_server 0.5.20");
  CHECK(found_line(f, preflight_needs(routed, p, "router")) == "router on node1: python -m sglang_router.launch_router 0.3.2");
  CHECK(found_line(f, preflight_needs(routed, p, "benchmark")) == "benchmark on node1: 1 of 1 script(s) there");
  const Recipe atom = lab_recipe();
  CHECK(found_line(f, preflight_needs(atom, p, "prefill")) ==
        "prefill on node1: sglang.launch_server 0.5.20; mooncake (no version)");
}

TEST_CASE("a program run by name is probed as its package, with the environment its command sets") {
  Profile p = default_profile();
  Recipe r = sglang_twin("base");
  r.backend.type = "vllm";
  CHECK(probe_interpreter(&r, p) == std::vector<std::string>{"python3"});
  CHECK(probe_arguments(&r, p, {}).at(1) == "vllm");  // `vllm serve`: the vllm package
  p.vllm_command = {"env", "PYTHONPATH=/lab/pkg", "/lab/bin/vllm", "serve"};
  CHECK(probe_interpreter(&r, p) == std::vector<std::string>{"env", "PYTHONPATH=/lab/pkg", "python3"});
  CHECK(probe_arguments(&r, p, {}).at(1) == "vllm");
  CHECK(command_program_index({"env", "A=1", "B=2", "prog", "x=y"}) == 3);
  CHECK(command_program_index({"prog", "A=1"}) == 0);
  CHECK(command_program_index({"env"}) == 1);  // names no program
}

TEST_CASE("an SGLang P/D worker needs Mooncake only when Mooncake moves its KV") {
  Recipe r = sglang_twin("base");
  const Profile p = default_profile();
  CHECK(preflight_needs(r, p, "prefill").mooncake);  // SGLang's default transfer backend
  r.backend.prefill_config["disaggregation-transfer-backend"] = "mori";
  r.backend.decode_config["disaggregation_transfer_backend"] = "mori";
  CHECK_FALSE(preflight_needs(r, p, "prefill").mooncake);
  CHECK_FALSE(preflight_needs(r, p, "decode").mooncake);
  r.backend.decode_config["disaggregation_transfer_backend"] = "mooncake";
  CHECK(preflight_needs(r, p, "decode").mooncake);
}

TEST_CASE("each role of the lab recipe needs its own pieces") {
  const Recipe r = lab_recipe();
  const Profile p = default_profile();
  const PreflightNeeds prefill = preflight_needs(r, p, "prefill");
  CHECK(prefill.engine);
  CHECK(prefill.mooncake);
  CHECK_FALSE(prefill.rdma);  // mooncake_protocol: tcp
  CHECK_FALSE(prefill.router);
  const PreflightNeeds router = preflight_needs(r, p, "router");
  CHECK(router.router);
  CHECK_FALSE(router.engine);
  const PreflightNeeds bench = preflight_needs(r, p, "benchmark");
  CHECK(bench.files == std::vector<std::string>{"/infmax-workspace/utils/bench_serving/benchmark_serving.py"});
}

TEST_CASE("RDMA P/D workers need devices, providers, memlock and the GID index") {
  Recipe r = lab_recipe();
  r.backend.mooncake_protocol = "rdma";
  Profile p = default_profile();
  p.mooncake_gid_index = 3;
  const PreflightNeeds decode = preflight_needs(r, p, "decode");
  CHECK(decode.rdma);
  CHECK(decode.gid_index == 3);
  Fingerprint f = fingerprint_from_probe(bare_probe(), "decode on node2");
  f.node = "node2";
  const auto lines = missing_pieces(f, decode);
  REQUIRE(lines.size() == 7);
  CHECK_THAT(lines[0], Catch::StartsWith("decode on node2: the engine module atom.entrypoints.openai_server is not there for "
                                         "/usr/bin/python3 (no module named 'atom' for /usr/bin/python3)"));
  CHECK_THAT(lines[1], Catch::StartsWith("decode on node2: Mooncake is not importable"));
  CHECK_THAT(lines[2], Catch::Contains("/dev/infiniband is missing"));
  CHECK_THAT(lines[3], Catch::Contains("no RDMA device"));
  CHECK_THAT(lines[4], Catch::Contains("no verbs provider"));
  CHECK_THAT(lines[5], Catch::Contains("memlock limit is 8388608 bytes, RDMA needs unlimited"));
  CHECK_THAT(lines[6], Catch::Contains("no RDMA device has a GID at index 3"));
}

TEST_CASE("router and benchmark: the binary and the scripts") {
  const Recipe r = lab_recipe();
  const Profile p = default_profile();
  const Fingerprint f = fingerprint_from_probe(bare_probe(), "here");
  const auto router = missing_pieces(f, preflight_needs(r, p, "router"));
  REQUIRE(router.size() == 1);
  CHECK(router[0] == "router: the router binary atomesh is not on PATH; the profile's router_command cannot start");
  const auto bench = missing_pieces(f, preflight_needs(r, p, "benchmark"));
  REQUIRE(bench.size() == 1);
  CHECK_THAT(bench[0], Catch::StartsWith("benchmark: /infmax-workspace/utils/bench_serving/benchmark_serving.py does not exist"));
}

TEST_CASE("a complete image has nothing missing") {
  Json probe = bare_probe();
  probe["engine"] = {{"module", "atom.entrypoints.openai_server"}, {"found", true}, {"version", "0.1.4.dev113+g4e0848dcd"},
                     {"commit", "4e0848dcd"}, {"kv_events", "offset"}};
  probe["mooncake"] = {{"found", true}, {"version", "0.3.6"}};
  probe["router"] = {{"command", "atomesh"}, {"path", "/usr/local/bin/atomesh"}, {"version", "0.1.0"}};
  probe["files"] = {{"/infmax-workspace/utils/bench_serving/benchmark_serving.py", true}};
  const Fingerprint f = fingerprint_from_probe(probe, "here");
  CHECK(f.engine_commit == "4e0848dcd");
  CHECK(f.kv_events_capability == "offset");
  const Recipe r = lab_recipe();
  for (const char* role : {"prefill", "decode", "router", "benchmark"})
    CHECK(missing_pieces(f, preflight_needs(r, default_profile(), role)).empty());
  const Json j = fingerprint_to_json(f);
  CHECK(j["engine"]["version"] == "0.1.4.dev113+g4e0848dcd");
  CHECK(j["image"].is_null());
}

TEST_CASE("the probe runs with the engine's interpreter and is told what to look for") {
  Profile p = default_profile();
  CHECK(probe_interpreter(nullptr, p) == std::vector<std::string>{"python3"});
  p.engine_command = {"env", "PYTHONPATH=/x/pkg", "/usr/bin/python3", "-m", "atom.entrypoints.openai_server"};
  CHECK(probe_interpreter(nullptr, p) == std::vector<std::string>{"env", "PYTHONPATH=/x/pkg", "/usr/bin/python3"});
  p.mooncake_gid_index = 3;
  Recipe r = lab_recipe();
  r.backend.mooncake_protocol = "rdma";
  r.identity.frameworks.push_back({"aiter", "0.1.5"});
  std::vector<PreflightNeeds> needs;
  for (const char* role : {"prefill", "router", "benchmark"}) needs.push_back(preflight_needs(r, p, role));
  CHECK(probe_arguments(&r, p, needs) ==
        std::vector<std::string>{"--engine-module", "atom.entrypoints.openai_server", "--router", "atomesh", "--file",
                                 "/infmax-workspace/utils/bench_serving/benchmark_serving.py", "--gid-index", "3",
                                 "--framework", "aiter", "--model-repo", "deepseek-ai/DeepSeek-V4-Pro"});
  CHECK(std::string(probe_script()).find("def probe_engine") != std::string::npos);
}

TEST_CASE("an answer that is not the probe's is an error naming where it came from") {
  CHECK_THROWS_WITH(fingerprint_from_probe(Json::parse(R"({"x": 1})"), "prefill on node1"),
                    Catch::Contains("prefill on node1"));
}

}  // namespace test_needs

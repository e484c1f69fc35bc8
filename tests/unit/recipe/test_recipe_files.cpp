// The shipped recipes, the good fixtures and the bad fixtures (each bad file names the key path,
// line and text its error must have in its first three comment lines).
#include <catch2/catch.hpp>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <tuple>

#include "srt/plan.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/files.hpp"

namespace {

const std::string kSrc = SRT_SOURCE_DIR;
const std::string kRecipes = kSrc + "/recipes/dsv4/atom/mi355x-fp4/8k1k/";  // schema 2, InferenceX layout

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".yaml") == 0) out.push_back(dir + "/" + n);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

srt::RecipeOptions with_gpus(int gpn) {
  srt::RecipeOptions o;
  o.default_gpus_per_node = gpn;
  return o;
}

std::string env_value(const srt::EnvList& env, const std::string& key) {
  for (const auto& [k, v] : env)
    if (k == key) return v;
  return "<unset>";
}

}  // namespace

TEST_CASE("the shipped 1P1D recipe loads to the expected model", "[recipe]") {
  auto r = srt::load_recipe_file(kRecipes + "disagg-1p1d-tp8.yaml", with_gpus(8));
  CHECK(r.name == "mi355x-atom-dsv4-disagg-1p1d-tp8-8k1k");
  CHECK(r.model.path == "hf:deepseek-ai/DeepSeek-V4-Pro");
  CHECK(r.model.container == "rocm/atom-dev:nightly_202608251555");
  CHECK(r.identity.container_image == r.model.container);
  REQUIRE(r.identity.frameworks.size() == 1);
  CHECK(r.identity.frameworks[0].second == "4e0848dcdf94f3d4be0c1e3ce51db99bc93f8b8c");
  CHECK(r.resources.prefill_nodes == 1);
  CHECK(r.resources.decode_nodes == 1);
  CHECK(r.resources.gpus_per_worker(srt::WorkerMode::prefill, 8) == 8);
  CHECK(r.backend.type == "atom");
  CHECK(r.backend.connector == "mooncake");
  CHECK(r.backend.mooncake_protocol == "tcp");
  CHECK_FALSE(r.backend.enable_kv_events);
  CHECK(r.backend.prefill_config["gpu-memory-utilization"] == srt::Json(0.84));
  CHECK(r.backend.decode_config["max-num-seqs"] == srt::Json(128));
  CHECK(env_value(r.backend.decode_environment, "ATOM_MOE_GU_ITLV") == "1");  // through the &env anchor
  CHECK(r.frontend.type == "atomesh");
  CHECK_FALSE(r.frontend.enable_multiple_frontends);
  CHECK(r.benchmark.type == "custom");
  CHECK(r.benchmark.command.find("for c in ${SRT_BENCHMARK_CONCURRENCIES:-4 8 16 32 64 128}") != std::string::npos);
  CHECK(r.benchmark.command.find("${SRT_FRONTEND_HOST}:${SRT_FRONTEND_PORT}") != std::string::npos);
  REQUIRE(r.health_check);
  CHECK(r.health_check->max_attempts == 720);
  CHECK(r.health_check->interval_seconds == 5);
  CHECK(env_value(r.srun_options, "container-writable").empty());
  CHECK(r.unsupported_keys.empty());
  CHECK(r.source.warnings.empty());
  // Written in schema 2: a diagnostic on a role's size names the key the file has.
  CHECK(r.source.written_path("resources.prefill_nodes") == "roles.prefill.nodes");
}

TEST_CASE("the shipped 2P1D recipe has DP attention and 3 nodes and its own grid", "[recipe]") {
  auto profile = srt::load_profile_file(kSrc + "/etc/srt/cluster.yaml");
  auto r = srt::load_recipe_file(kRecipes + "disagg-2p1d-dpa-tp8.yaml", with_gpus(profile.gpus_per_node));
  CHECK(srt::node_demand(r, profile) == 3);
  CHECK(r.backend.decode_config["enable-dp-attention"] == srt::Json(true));
  CHECK(r.backend.decode_config["max-num-seqs"] == srt::Json(2048));
  CHECK(env_value(r.backend.prefill_environment, "GPU_MAX_HW_QUEUES") == "5");
  CHECK(r.benchmark.command.find("for c in ${SRT_BENCHMARK_CONCURRENCIES:-256 512 768 1024 2048}") != std::string::npos);
  CHECK(r.unsupported_keys.empty());
  auto r1 = srt::load_recipe_file(kRecipes + "disagg-1p1d-tp8.yaml", with_gpus(8));
  CHECK(srt::node_demand(r1, profile) == 2);
}

// Issue 22 item 7: the smoke recipes exist to prove, in minutes, the same chain the DSV4 recipes
// use: same image, processes on the same nodes with the same GPUs, the same ports and Mooncake
// wiring, the same router wiring. Only the model, its flags and (2P1D) DP attention differ.
TEST_CASE("the smoke recipes run the DSV4 recipes' processes, GPUs, ports and wiring", "[recipe]") {
  const srt::Profile profile = srt::load_profile_file(kSrc + "/etc/srt/cluster.yaml");
  const std::string smoke = kSrc + "/recipes/qwen3/atom/mi355x-bf16/smoke/";
  for (const auto& [small, big, dp_attention] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"disagg-1p1d-tp8.yaml", "disagg-1p1d-tp8.yaml", false}, {"disagg-2p1d-tp8.yaml", "disagg-2p1d-dpa-tp8.yaml", true}}) {
    INFO(small);
    const srt::Recipe s = srt::load_recipe_file(smoke + small, with_gpus(profile.gpus_per_node));
    const srt::Recipe d = srt::load_recipe_file(kRecipes + big, with_gpus(profile.gpus_per_node));
    CHECK(s.model.path == "hf:Qwen/Qwen3-0.6B");
    CHECK(s.model.container == d.model.container);
    CHECK(s.identity.frameworks == d.identity.frameworks);
    CHECK(s.backend.prefill_config.contains("enable-dp-attention") == false);  // dense: no DP attention, no TBO
    CHECK(s.backend.prefill_config.contains("enable-tbo") == false);
    const int nodes = srt::node_demand(d, profile);
    REQUIRE(srt::node_demand(s, profile) == nodes);
    srt::PlanInputs in;
    in.job_id = 7;
    for (int i = 1; i <= nodes; ++i) in.nodes.push_back("mi355x-0" + std::to_string(i));
    const srt::Plan a = srt::make_plan(s, profile, in), b = srt::make_plan(d, profile, in);
    REQUIRE(a.processes.size() == b.processes.size());
    for (std::size_t i = 0; i < a.processes.size(); ++i) {
      const srt::Process &p = a.processes[i], &q = b.processes[i];
      INFO(p.name);
      CHECK(p.name == q.name);
      CHECK(p.node == q.node);
      CHECK(p.gpus == q.gpus);
      CHECK(p.log_file == q.log_file);
      CHECK(p.readiness.port == q.readiness.port);
      if (!dp_attention) {
        CHECK(p.ports == q.ports);
        if (p.role == srt::Role::router) CHECK(p.argv == q.argv);
      } else {
        // DP attention adds ATOM's DP master and base ports ahead of the handshake block.
        CHECK(p.ports.http == q.ports.http);
        CHECK(p.ports.engine == q.ports.engine);
        if (!q.ports.handshake.empty()) CHECK(p.ports.handshake.size() == q.ports.handshake.size());
      }
    }
    // The router: the same workers, the same backend and port.
    const srt::Process *ra = a.find("router"), *rb = b.find("router");
    REQUIRE(ra);
    REQUIRE(rb);
    auto urls = [](const srt::Process& r) {
      std::vector<std::string> out;
      for (std::size_t i = 0; i + 1 < r.argv.size(); ++i)
        if (r.argv[i] == "--prefill" || r.argv[i] == "--decode" || r.argv[i] == "--backend" || r.argv[i] == "--port")
          out.push_back(r.argv[i] + " " + r.argv[i + 1]);
      return out;
    };
    CHECK(urls(*ra) == urls(*rb));
  }
}

TEST_CASE("good fixtures load", "[recipe]") {
  const auto files = yaml_files(kSrc + "/tests/fixtures/recipes/good");
  REQUIRE(files.size() >= 4);
  for (const auto& f : files) {
    INFO(f);
    CHECK_NOTHROW(srt::load_recipe_file(f, with_gpus(8)));
  }
  auto shared = srt::load_recipe_file(kSrc + "/tests/fixtures/recipes/good/atom-shared-decode-anchors.yaml", with_gpus(8));
  CHECK(shared.resources.decode_nodes_given);
  CHECK(shared.resources.gpus_per_worker(srt::WorkerMode::decode, 8) == 4);  // inherits prefill's
  // PyYAML order: the last merged mapping first, the first one winning.
  CHECK(shared.backend.decode_config.dump() == R"({"block-size":16,"enforce-eager":true,"kv_cache_dtype":"fp8","max-num-seqs":32})");
  CHECK(env_value(shared.backend.decode_environment, "OMP_NUM_THREADS") == "2");
  CHECK(shared.health_check->interval_seconds == 10);  // srtctl's dataclass default
  auto agg = srt::load_recipe_file(kSrc + "/tests/fixtures/recipes/good/agg-direct.yaml", with_gpus(8));
  CHECK(env_value(agg.environment, "A") == "1");
  CHECK(env_value(agg.environment, "B") == "0.5");
  CHECK(env_value(agg.srun_options, "container-writable").empty());
  CHECK(env_value(agg.srun_options, "mem") == "0");
  CHECK(agg.identity.frameworks[0].second == "0.1");
  CHECK(agg.benchmark.concurrencies == std::vector<int>{1, 2});
  CHECK(agg.extra_mount == std::vector<std::string>{"/a:/b:ro"});
}

TEST_CASE("every bad fixture fails with its key path and line and message", "[recipe]") {
  const auto files = yaml_files(kSrc + "/tests/fixtures/recipes/bad");
  REQUIRE(files.size() >= 50);
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string l1, l2, l3;
    std::getline(in, l1);
    std::getline(in, l2);
    std::getline(in, l3);
    const std::string want_path = l1.substr(std::string("# expect-path: ").size());
    const int want_line = std::stoi(l2.substr(std::string("# expect-line: ").size()));
    const std::string want_text = l3.substr(std::string("# expect-text: ").size());
    INFO(f << "\n  want " << want_path << " @" << want_line << " ~ " << want_text);
    try {
      srt::load_recipe_file(f, with_gpus(8));
      FAIL_CHECK("accepted");
    } catch (const srt::Error& e) {
      INFO("got:\n" << e.what());
      bool found = false;
      for (const auto& d : e.diagnostics()) {
        if (!want_path.empty() && d.key_path != want_path) continue;
        if (want_line != 0 && d.mark.line != want_line) continue;
        if (d.str().find(want_text) == std::string::npos) continue;
        CHECK(d.file == f);
        found = true;
      }
      CHECK(found);
    }
  }
}

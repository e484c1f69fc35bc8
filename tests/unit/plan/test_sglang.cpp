// SGLang workers and sglang-router as srtctl renders them (backends/sglang.py, frontends/sglang.py),
// with every port they and their children bind planned: the DP-attention block SGLang derives
// from --port (or from --dist-init-addr across nodes), NCCL, the prefill bootstrap port.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "process_checks.hpp"
#include "srt/contract.hpp"
#include "srt/engines.hpp"

using namespace test_recipes;

namespace {

srt::Recipe sglang_agg(int gpus, int workers, bool dp_attention, const std::string& frontend) {
  srt::Recipe r;
  r.source.file = "sglang.yaml";
  r.name = "sglang";
  r.model.path = "hf:deepseek-ai/DeepSeek-R1-0528";
  r.resources.gpu_type = "mi355x";
  r.resources.gpus_per_node = 8;
  r.resources.agg_nodes = 1;
  r.resources.agg_workers = workers;
  r.resources.gpus_per_agg = gpus;
  r.backend.type = "sglang";
  srt::Json cfg = {{"tensor-parallel-size", gpus}, {"trust-remote-code", true}, {"disable-radix-cache", false},
                   {"served-model-name", "deepseek-ai/DeepSeek-R1-0528"}, {"mem-fraction-static", 0.8},
                   {"cuda_graph_bs", srt::Json::array({1, 2, 4})}, {"enable-metrics", nullptr}};
  if (dp_attention) {
    cfg["data-parallel-size"] = gpus;
    cfg["enable-dp-attention"] = true;
  }
  r.backend.aggregated_config = cfg;
  r.backend.aggregated_environment = {{"SGLANG_USE_AITER", "1"}};
  r.frontend.type = frontend;
  r.frontend.enable_multiple_frontends = false;
  if (frontend == "sglang-router") r.frontend.args = {{"policy", "cache_aware"}, {"dp-aware", true}};
  r.benchmark.type = "custom";
  r.benchmark.command = "echo bench";
  return r;
}

srt::Recipe sglang_pd(int prefill_nodes, int gpus_per_prefill, bool dp_attention) {
  srt::Recipe r = sglang_agg(8, 1, false, "sglang-router");
  r.resources.agg_nodes = 0;
  r.resources.agg_workers = 0;
  r.resources.gpus_per_agg = 0;
  r.resources.prefill_nodes = prefill_nodes;
  r.resources.decode_nodes = 1;
  r.resources.decode_nodes_given = true;
  r.resources.prefill_workers = 1;
  r.resources.decode_workers = 1;
  r.resources.gpus_per_prefill = gpus_per_prefill;
  r.resources.gpus_per_decode = 8;
  srt::Json cfg = {{"tp-size", gpus_per_prefill}, {"disaggregation-transfer-backend", "mori"},
                   {"served-model-name", "dsv4"}};
  if (dp_attention) {
    cfg["dp-size"] = gpus_per_prefill;
    cfg["enable-dp-attention"] = true;
  }
  r.backend.prefill_config = cfg;
  cfg["tp-size"] = 8;
  if (dp_attention) cfg["dp-size"] = 8;
  r.backend.decode_config = cfg;
  r.backend.aggregated_config = srt::Json::object();
  r.frontend.args = {{"policy", "consistent_hashing"}, {"dp-aware", true}};
  return r;
}

std::vector<int> dp_block_of(int p) {
  std::vector<int> out = {p + 13};
  for (int i = 233; i <= 239; ++i) out.push_back(p + i);
  return out;
}

}  // namespace

TEST_CASE("sglang direct: one aggregated worker on the public port, argv as srtctl renders it") {
  const srt::Plan plan = srt::make_plan(sglang_agg(4, 1, false, "sglang-direct"), srt::default_profile(), inputs(1));
  REQUIRE(plan.find("router") == nullptr);
  const srt::Process& w = *plan.find("agg:0");
  CHECK(w.adapter == "sglang");
  const std::vector<std::string> head(w.argv.begin(), w.argv.begin() + 15);
  CHECK(head == std::vector<std::string>{"python3", "-m", "sglang.launch_server", "--model-path",
                                          "deepseek-ai/DeepSeek-R1-0528", "--served-model-name",
                                          "deepseek-ai/DeepSeek-R1-0528", "--host", "10.0.0.1", "--port", "8000",
                                          "--nccl-port", std::to_string(w.ports.nccl.at(0)),
                                          // sorted recipe args: '_' keys sort after '-' ones, then '_' -> '-'
                                          "--cuda-graph-bs", "1"});
  const std::vector<std::string> rest(w.argv.begin() + 15, w.argv.end());
  CHECK(rest == std::vector<std::string>{"2", "4", "--mem-fraction-static", "0.8", "--tensor-parallel-size", "4",
                                          "--trust-remote-code"});
  CHECK_FALSE(has_arg(w, "--disable-radix-cache"));  // false: dropped
  CHECK_FALSE(has_arg(w, "--enable-metrics"));       // null: dropped
  CHECK(w.ports.http == std::vector<int>{8000});
  CHECK(w.ports.derived.empty());
  CHECK(env_of(w, "ROCR_VISIBLE_DEVICES") == "0,1,2,3");  // a partial node: the visibility variable
  CHECK(env_of(w, "SGLANG_HOST_IP") == "10.0.0.1");
  CHECK(env_of(w, "SGLANG_USE_AITER") == "1");
  CHECK(env_of(w, "SRT_HTTP_PORT") == "8000");
  CHECK(w.readiness.kind == "http");
  CHECK(w.readiness.path == "/health");
  CHECK(env_of(*plan.find("benchmark"), "SRT_FRONTEND_PORT") == "8000");
  CHECK(env_of(*plan.find("benchmark"), "SRTCTL_FRONTEND_TYPE") == "sglang");
  CHECK(srt::progress_metric(w) == "sglang:num_requests_total");
  CHECK(srt::teardown_sweep(w) == std::vector<std::string>{"/dev/shm/multi_tokenizer_args_*", "/dev/shm/sgl_shm_*"});
  CHECK(srt::plan_to_json(plan)["processes"][0]["adapter"] == "sglang");
}

TEST_CASE("sglang direct with DP attention: the block SGLang derives from the public port is reserved") {
  const srt::Plan plan = srt::make_plan(sglang_agg(8, 1, true, "sglang-direct"), srt::default_profile(), inputs(1));
  const srt::Process& w = *plan.find("agg:0");
  CHECK(w.ports.derived == dp_block_of(8000));
  CHECK(w.dp_ranks == 8);
  no_port_twice(plan);
}

TEST_CASE("sglang-router with DP attention: workers' blocks, the router's argv, Prometheus port and gate") {
  srt::Recipe r = sglang_agg(4, 2, true, "sglang-router");
  const srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(1));
  const srt::Process& a = *plan.find("agg:0");
  const srt::Process& b = *plan.find("agg:1");
  // Two DP-attention workers on one node: each block sits at its own --port's offsets, disjoint.
  CHECK(a.ports.derived == dp_block_of(a.ports.http.at(0)));
  CHECK(b.ports.derived == dp_block_of(b.ports.http.at(0)));
  CHECK(arg_after(a, "--port") == std::to_string(a.ports.http.at(0)));
  CHECK(env_of(b, "ROCR_VISIBLE_DEVICES") == "4,5,6,7");
  no_port_twice(plan);
  const srt::Process& router = *plan.find("router");
  CHECK(router.adapter == "sglang-router");
  const std::string m = std::to_string(router.ports.metrics.at(0));
  CHECK(router.argv == std::vector<std::string>{"python", "-m", "sglang_router.launch_router", "--worker-urls",
                                                 "http://10.0.0.1:" + std::to_string(a.ports.http.at(0)),
                                                 "http://10.0.0.1:" + std::to_string(b.ports.http.at(0)), "--host",
                                                 "10.0.0.1", "--port", "8000", "--prometheus-port", m,
                                                 "--prometheus-host", "10.0.0.1", "--policy", "cache_aware",
                                                 "--dp-aware"});
  CHECK(router.readiness.kind == "workers");
  CHECK(router.readiness.path == "/workers");
  CHECK(srt::progress_metric(router) == "smg_http_responses_total");
  CHECK(env_of(*plan.find("benchmark"), "SRTCTL_FRONTEND_TYPE") == "sglang-router");
}

TEST_CASE("sglang PD over MoRI: bootstrap ports, the router's --prefill URL BOOTSTRAP, SGLANG_HOST_IP") {
  const srt::Plan plan = srt::make_plan(sglang_pd(1, 8, true), srt::default_profile(), inputs(2));
  const srt::Process& p = *plan.find("prefill:0");
  const srt::Process& d = *plan.find("decode:0");
  REQUIRE(p.ports.bootstrap.size() == 1);
  CHECK(d.ports.bootstrap.empty());
  CHECK(arg_after(p, "--disaggregation-mode") == "prefill");
  CHECK(has_arg(p, "--skip-server-warmup"));
  CHECK(arg_after(p, "--disaggregation-bootstrap-port") == std::to_string(p.ports.bootstrap.at(0)));
  CHECK(arg_after(d, "--disaggregation-mode") == "decode");
  CHECK_FALSE(has_arg(d, "--disaggregation-bootstrap-port"));
  CHECK(env_of(p, "SGLANG_HOST_IP") == "10.0.0.1");
  CHECK(env_of(d, "SGLANG_HOST_IP") == "10.0.0.2");
  CHECK(p.ports.derived == dp_block_of(p.ports.http.at(0)));
  CHECK_FALSE(has_arg(p, "--dist-init-addr"));
  const srt::Process& router = *plan.find("router");
  const std::vector<std::string> head(router.argv.begin(), router.argv.begin() + 9);
  CHECK(head == std::vector<std::string>{"python", "-m", "sglang_router.launch_router", "--pd-disaggregation",
                                          "--prefill", "http://10.0.0.1:" + std::to_string(p.ports.http.at(0)),
                                          std::to_string(p.ports.bootstrap.at(0)), "--decode",
                                          "http://10.0.0.2:" + std::to_string(d.ports.http.at(0))});
  no_port_twice(plan);

  // On the node: the NICs paired with the worker's GPUs become MoRI's filter list, unless the
  // recipe names its own devices.
  srt::Process bound = p;
  srt::WorkerBinding b;
  b.gpus = {0, 1};
  b.ib_devices = {"rdma3", "rdma0"};
  srt::apply_binding(bound, b, "192.168.9.1", srt::default_profile(), 4242);
  CHECK(env_of(bound, "MORI_RDMA_DEVICES") == "rdma3,rdma0");
  CHECK(env_of(bound, "SGLANG_HOST_IP") == "192.168.9.1");
  CHECK(env_of(bound, "ATOM_HOST_IP") == "<unset>");
  srt::Recipe named = sglang_pd(1, 8, true);
  named.backend.prefill_config["disaggregation-ib-device"] = "rdma1,rdma2";
  srt::Process own = *srt::make_plan(named, srt::default_profile(), inputs(2)).find("prefill:0");
  CHECK(arg_after(own, "--disaggregation-ib-device") == "rdma1,rdma2");
  srt::apply_binding(own, b, "192.168.9.1", srt::default_profile(), 4242);
  CHECK(env_of(own, "MORI_RDMA_DEVICES") == "<unset>");
}

TEST_CASE("listeners: SGLang's workers (HTTP and bootstrap) and sglang-router bind their node's address", "[listeners]") {
  // 1P1D with DP attention: the prefill's and the decode's --host (the prefill's bootstrap server
  // binds there too), the router's --host and --prometheus-host; direct: the one worker.
  CHECK(check_listen_hosts(sglang_pd(1, 8, true)) == 4);
  CHECK(check_listen_hosts(sglang_agg(8, 1, true, "sglang-direct")) == 1);
}

TEST_CASE("sglang PD: KV over RDMA as the transfer backend says - mori and mooncake yes, mooncake_tcp no") {
  const auto rdma_mounted = [](const srt::Process& w) {
    return std::any_of(w.container.mounts.begin(), w.container.mounts.end(),
                       [](const srt::Mount& m) { return m.host == "/dev/infiniband"; });
  };
  for (const char* backend : {"mori", "mooncake", "mooncake_tcp", "fake"}) {
    INFO(backend);
    srt::Recipe r = sglang_pd(1, 8, false);
    r.backend.prefill_config["disaggregation-transfer-backend"] = backend;
    r.backend.decode_config["disaggregation-transfer-backend"] = backend;
    const bool rdma = std::string(backend) == "mori" || std::string(backend) == "mooncake";
    CHECK(srt::kv_over_rdma(r) == rdma);
    const srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(2));
    for (const char* name : {"prefill:0", "decode:0"}) {
      CHECK(rdma_mounted(*plan.find(name)) == rdma);
      CHECK(plan.find(name)->container.unlimited_memlock == rdma);
    }
  }
  // SGLang's default backend is mooncake: over RDMA when the recipe does not say.
  srt::Recipe plain = sglang_pd(1, 8, false);
  plain.backend.prefill_config.erase("disaggregation-transfer-backend");
  plain.backend.decode_config.erase("disaggregation-transfer-backend");
  CHECK(srt::kv_over_rdma(plain));
}

TEST_CASE("sglang multi-node worker: one process per node, --dist-init-addr on the leader, its block") {
  const srt::Plan plan = srt::make_plan(sglang_pd(2, 16, true), srt::default_profile(), inputs(3));
  std::vector<const srt::Process*> prefill;
  for (const auto& p : plan.processes)
    if (p.name == "prefill:0") prefill.push_back(&p);
  REQUIRE(prefill.size() == 2);
  const srt::Process& leader = *prefill[0];
  const srt::Process& follower = *prefill[1];
  CHECK(plan.find("prefill:0") == &leader);
  CHECK(plan.find("prefill:0", 1) == &follower);
  REQUIRE(leader.ports.dist_init.size() == 1);
  const int d = leader.ports.dist_init[0];
  CHECK(arg_after(leader, "--dist-init-addr") == "10.0.0.1:" + std::to_string(d));
  CHECK(arg_after(follower, "--dist-init-addr") == "10.0.0.1:" + std::to_string(d));
  CHECK(arg_after(leader, "--nnodes") == "2");
  CHECK(arg_after(leader, "--node-rank") == "0");
  CHECK(arg_after(follower, "--node-rank") == "1");
  CHECK(leader.ports.derived == std::vector<int>{d + 1, d + 2, d + 3, d + 4, d + 5, d + 6, d + 13});
  CHECK(follower.ports.derived.empty());
  CHECK(follower.ports.dist_init.empty());
  CHECK(follower.readiness.port == follower.ports.http.at(0));  // its health-only server
  // The router lists the leader only; the benchmark contract too.
  const srt::Process& router = *plan.find("router");
  CHECK(std::count(router.argv.begin(), router.argv.end(), "--prefill") == 1);
  CHECK(env_of(*plan.find("benchmark"), "SRT_PREFILL_IPS") == "10.0.0.1");
  no_port_twice(plan);
  // Each node's step finds its own process.
  CHECK(srt::step_environment(plan, 1, "prefill:0").worker == &follower);
}

TEST_CASE("sglang: a role arg that names a socket the Plan manages is refused with its key") {
  srt::Recipe r = sglang_agg(8, 1, false, "sglang-router");
  r.backend.aggregated_config["disaggregation-bootstrap-port"] = 8998;
  REQUIRE_THROWS_WITH(srt::make_plan(r, srt::default_profile(), inputs(1)),
                      Catch::Contains("backend.sglang_config.aggregated.disaggregation-bootstrap-port"));
  // The four srtctl pops are its own: dropped, and set from the Plan.
  r = sglang_agg(8, 1, false, "sglang-router");
  r.backend.aggregated_config["nccl-port"] = 1234;
  r.backend.aggregated_config["model_path"] = "/elsewhere";
  const srt::Process w = *srt::make_plan(r, srt::default_profile(), inputs(1)).find("agg:0");
  CHECK(std::count(w.argv.begin(), w.argv.end(), "--nccl-port") == 1);
  CHECK(arg_after(w, "--nccl-port") != "1234");
  CHECK_FALSE(has_arg(w, "/elsewhere"));
}

TEST_CASE("sglang: the adapter is in the digest - an ATOM plan's digest does not show it") {
  const srt::Plan plan = srt::make_plan(sglang_agg(8, 1, true, "sglang-router"), srt::default_profile(), inputs(1));
  srt::Plan other = plan;
  other.processes.front().adapter = "vllm";
  CHECK(srt::plan_digest(other) != plan.digest);
  srt::Plan atom = srt::make_plan(dsv4_1p1d(), srt::default_profile(), inputs(2));
  CHECK(atom.processes.front().adapter == "atom");
  CHECK_FALSE(srt::plan_to_json(atom)["processes"][0].contains("adapter"));
}

TEST_CASE("property: generated SGLang recipes never reuse a port, DP-attention blocks included") {
  std::mt19937 rng(20261205);
  const srt::Profile prof = srt::default_profile();
  for (int i = 0; i < 300; ++i) {
    INFO("case " << i);
    const int gpus = 1 << (rng() % 4);             // 1, 2, 4, 8 GPUs per worker
    const int workers = 1 + int(rng() % (8 / gpus));
    srt::Recipe r = sglang_agg(gpus, workers, rng() % 2 == 0, "sglang-router");
    if (rng() % 3 == 0) {
      const int pn = 1 + int(rng() % 2);
      r = sglang_pd(pn, 8 * pn, rng() % 2 == 0);
    }
    const srt::Plan plan = srt::make_plan(r, prof, inputs(3, rng() % 1000));
    no_port_twice(plan);
    for (const auto& p : plan.processes) {
      if (p.adapter != "sglang") continue;
      CHECK(arg_after(p, "--port") == std::to_string(p.ports.http.at(0)));
      CHECK(arg_after(p, "--nccl-port") == std::to_string(p.ports.nccl.at(0)));
      if (has_arg(p, "--enable-dp-attention") && p.ports.dist_init.empty() && !has_arg(p, "--dist-init-addr"))
        CHECK(p.ports.derived == dp_block_of(p.ports.http.at(0)));
    }
  }
}

namespace {

// "router:mesh_http_responses_total{status_code=\"200\"}@PORT" per source, in Plan order.
std::vector<std::string> sources_of(const srt::Plan& plan) {
  std::vector<std::string> out;
  for (const auto& s : srt::progress_sources(plan))
    out.push_back(s.process->name + ":" + s.metric + (s.label.empty() ? "" : "{" + s.label + "}") + "@" + std::to_string(s.port));
  return out;
}

}  // namespace

// The stall watch reads what each program's adapter names: ATOM's plan reads what it always read,
// SGLang's reads smg's 200 answers and each worker's sglang:num_requests_total.
TEST_CASE("progress sources: the router's 200 answers on its metrics port, each serving worker's counter on its HTTP port") {
  const srt::Plan atom = srt::make_plan(dsv4_1p1d(), srt::default_profile(), inputs(2));
  const std::string r = std::to_string(atom.find("router")->ports.metrics.at(0));
  const std::string ap = std::to_string(atom.find("prefill:0")->ports.http.at(0));
  const std::string ad = std::to_string(atom.find("decode:0")->ports.http.at(0));
  CHECK(sources_of(atom) == std::vector<std::string>{"prefill:0:atom:requests_finished_total@" + ap,
                                                      "decode:0:atom:requests_finished_total@" + ad,
                                                      "router:mesh_http_responses_total{status_code=\"200\"}@" + r});

  const srt::Plan sglang = srt::make_plan(sglang_pd(1, 8, true), srt::default_profile(), inputs(2));
  const auto s = sources_of(sglang);
  REQUIRE(s.size() == 3);
  CHECK(s[0] == "prefill:0:sglang:num_requests_total@" + std::to_string(sglang.find("prefill:0")->ports.http.at(0)));
  CHECK(s[1] == "decode:0:sglang:num_requests_total@" + std::to_string(sglang.find("decode:0")->ports.http.at(0)));
  CHECK(s[2] == "router:smg_http_responses_total{status_code=\"200\"}@" + std::to_string(sglang.find("router")->ports.metrics.at(0)));
}

#include <catch2/catch.hpp>

#include <algorithm>

#include "process_checks.hpp"
#include "srt/error.hpp"

using namespace test_recipes;

namespace {

std::string job_env(const srt::Plan& plan, const std::string& name) {
  for (const auto& [k, v] : plan.job_env)
    if (k == name) return v;
  return "<unset>";
}

}  // namespace

TEST_CASE("2P1D prefill_0 argv: srtctl's order, our ports, sorted recipe flags") {
  srt::Plan plan = srt::make_plan(dsv4_2p1d(), srt::default_profile(), inputs(3));
  const srt::Process& w = *plan.find("prefill:0");
  const std::string http = std::to_string(w.ports.http[0]);
  const std::string engine = std::to_string(w.ports.engine[0]);
  const std::string hs = std::to_string(w.ports.handshake[0]);
  const std::vector<std::string> expected = {
      "python3", "-m", "atom.entrypoints.openai_server", "--model", "deepseek-ai/DeepSeek-V4-Pro",
      "--host", "10.0.0.1", "--server-port", http, "--port", engine, "-tp", "8",
      "--kv-transfer-config",
      R"({"kv_role":"kv_producer","kv_connector":"mooncake","handshake_port":)" + hs +
          R"(,"protocol":"tcp","http_port":)" + http + "}",
      "--block-size", "16", "--enable-dp-attention", "--enable-tbo", "--gpu-memory-utilization", "0.85",
      "--kv_cache_dtype", "fp8", "--max-num-seqs", "256", "--no-enable_prefix_caching",
      "--trust-remote-code"};
  CHECK(w.argv == expected);
  CHECK(w.ranks == 8);
  CHECK(w.ports.handshake.size() == 8);
  CHECK(w.log_file == "mi355x-01_prefill_w0.out");
  CHECK(w.step_name == "prefill_0");
}

TEST_CASE("worker environment: recipe env with {node}, DP ports, ATOM_HOST_IP, entrypoint switch unset") {
  srt::Plan plan = srt::make_plan(dsv4_2p1d(), srt::default_profile(), inputs(3));
  const srt::Process& d = *plan.find("decode:0");
  CHECK(env_of(d, "NODE_TAG") == "mi355x-03-2");
  CHECK(env_of(d, "OMP_NUM_THREADS") == "1");
  CHECK(env_of(d, "ATOM_HOST_IP") == "10.0.0.3");
  CHECK(env_of(d, "ATOM_DP_MASTER_PORT") == std::to_string(d.ports.dp_master[0]));
  CHECK(env_of(d, "ATOM_DP_BASE_PORT") == std::to_string(d.ports.dp_base[0]));
  CHECK(env_of(d, "SRT_STEP") == "decode:0");
  CHECK(env_of(d, "SRT_HTTP_PORT") == std::to_string(d.ports.http[0]));
  CHECK(env_of(d, "ROCR_VISIBLE_DEVICES") == "<unset>");  // whole node: no mask, as srtctl
  CHECK(d.unset_env == std::vector<std::string>{"USE_ATOMESH_ENTRYPOINTS"});
  CHECK(arg_after(d, "--max-num-seqs") == "2048");
}

TEST_CASE("1P1D TP8 without DP attention binds no DP rendezvous ports") {
  srt::Plan plan = srt::make_plan(dsv4_1p1d(), srt::default_profile(), inputs(2));
  const srt::Process& w = *plan.find("prefill:0");
  CHECK(w.ports.dp_master.empty());
  CHECK(env_of(w, "ATOM_DP_MASTER_PORT") == "<unset>");
  CHECK(w.ports.handshake.size() == 8);  // one TP rank per GPU still needs its side channel
}

TEST_CASE("partial-node workers get the profile's visibility variable") {
  srt::Plan plan = srt::make_plan(atom_pd(1, 1, 2, 2, 4, 4, false), srt::default_profile(), inputs(2));
  CHECK(env_of(*plan.find("prefill:1"), "ROCR_VISIBLE_DEVICES") == "4,5,6,7");
}

TEST_CASE("AToMesh: PD mode, every prefill then every decode, public port, our metrics port") {
  srt::Recipe r = dsv4_2p1d();
  r.frontend.args = {{"policy", "random"}, {"disable_circuit_breaker", true}};
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(3));
  const srt::Process& router = *plan.find("router");
  const auto& p0 = *plan.find("prefill:0");
  const auto& p1 = *plan.find("prefill:1");
  const auto& d0 = *plan.find("decode:0");
  auto url = [](const char* ip, const srt::Process& w) { return std::string("http://") + ip + ":" + std::to_string(w.ports.http[0]); };
  const std::vector<std::string> expected = {
      "atomesh", "launch", "--pd-disaggregation", "--prefill", url("10.0.0.1", p0), "--prefill",
      url("10.0.0.2", p1), "--decode", url("10.0.0.3", d0), "--host", "10.0.0.1", "--port", "8000",
      "--backend", "atom", "--prometheus-port", std::to_string(router.ports.metrics[0]), "--prometheus-host",
      "10.0.0.1", "--policy", "random", "--disable-circuit-breaker"};
  CHECK(router.argv == expected);
  CHECK(router.readiness.path == "/workers");
  CHECK(router.log_file == "mi355x-01_atomesh_0.out");
}

TEST_CASE("listeners: ATOM's workers and AToMesh bind their node's data-network address", "[listeners]") {
  // 2P1D: three workers' --host and the router's --host and --prometheus-host.
  CHECK(check_listen_hosts(dsv4_2p1d()) == 5);
}

TEST_CASE("the job-level contract: frontend, per-role IPs and endpoints") {
  srt::Plan plan = srt::make_plan(dsv4_2p1d(), srt::default_profile(), inputs(3));
  CHECK(job_env(plan, "SRT_RECIPE") == "recipes/test.yaml");
  CHECK(job_env(plan, "SRT_FRONTEND_HOST") == "10.0.0.1");
  CHECK(job_env(plan, "SRT_FRONTEND_PORT") == "8000");
  CHECK(job_env(plan, "SRTCTL_FRONTEND_TYPE") == "atomesh");
  CHECK(job_env(plan, "SRT_PREFILL_IPS") == "10.0.0.1,10.0.0.2");
  CHECK(job_env(plan, "SRT_DECODE_ENDPOINTS") ==
        "10.0.0.3:" + std::to_string(plan.find("decode:0")->ports.http[0]));
  CHECK(job_env(plan, "SRT_AGG_IPS").empty());
  CHECK(job_env(plan, "SRT_KV_EVENT_ENDPOINTS") == "<unset>");
  const srt::Process& b = *plan.find("benchmark");
  CHECK(b.argv == std::vector<std::string>{"bash", "-lc", "echo bench"});
  CHECK(env_of(b, "SRT_FRONTEND_HOST") == "10.0.0.1");
  CHECK(env_of(b, "HF_HOME") == "/hf_hub_cache");
}

TEST_CASE("KV events: offset advertises every rank, relay one endpoint per worker") {
  srt::Recipe r = dsv4_2p1d();
  r.backend.enable_kv_events = true;
  srt::PlanInputs in = inputs(3);
  in.kv_events_capability = "offset";
  srt::Plan off = srt::make_plan(r, srt::default_profile(), in);
  CHECK(off.kv_events_mode == srt::KvMode::offset);
  CHECK(off.kv_event_endpoints.size() == 24);  // 3 workers x 8 DP ranks
  const auto& w = *off.find("prefill:1");
  CHECK(env_of(w, "ATOM_KV_EVENTS_ENDPOINT") == "tcp://*:" + std::to_string(w.ports.kv_events[0]));

  in.kv_events_capability = "connect";
  srt::Plan rel = srt::make_plan(r, srt::default_profile(), in);
  CHECK(rel.kv_events_mode == srt::KvMode::relay);
  CHECK(rel.kv_event_endpoints.size() == 3);
  const srt::Process* relay = rel.find("kv-relay:decode:0");
  REQUIRE(relay);
  CHECK(relay->node_index == 2);
  CHECK(env_of(*rel.find("decode:0"), "INFERA_ATOM_KV_EVENTS_CONNECT") == "1");

  in.kv_events_capability = "none";
  REQUIRE_THROWS_WITH(srt::make_plan(r, srt::default_profile(), in),
                      Catch::Contains("backend.enable_kv_events") && Catch::Contains("Address already in use"));
}

TEST_CASE("apply_binding names the paired NICs for RDMA and the NUMA nodes") {
  srt::Recipe r = dsv4_1p1d();
  r.backend.mooncake_protocol = "rdma";
  srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(2));
  srt::Process w = *plan.find("prefill:0");
  srt::WorkerBinding b;
  b.gpus = {0, 1};
  b.ib_devices = {"ionic_4", "ionic_0"};
  b.numa_nodes = {0, 0};
  b.cpus = "0-63";
  srt::apply_binding(w, b, "192.168.9.1", srt::default_profile(), 4242);
  CHECK(arg_after(w, "--kv-transfer-config").find(R"("ib_device":"ionic_4,ionic_0")") != std::string::npos);
  CHECK(env_of(w, "ATOM_NUMA_NODE") == "0,0");
  CHECK(env_of(w, "ATOM_HOST_IP") == "192.168.9.1");
}

TEST_CASE("apply_binding keeps the NICs a recipe chose itself, and leaves matched rails one NIC per rank") {
  srt::Recipe r = dsv4_1p1d();
  r.backend.mooncake_protocol = "rdma";
  srt::WorkerBinding b;
  b.gpus = {0, 1};
  b.ib_devices = {"ionic_4", "ionic_0"};
  b.numa_nodes = {0, 0};
  b.mooncake_topology = R"({"hip:0": [["ionic_4"], ["ionic_0"]]})";
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"ATOM_MOONCAKE_IB_DEVICE", "rdma3"},
                                    std::pair<std::string, std::string>{"ATOM_MOONCAKE_MATCHED_RAILS", "auto"}}) {
    INFO(name);
    srt::Recipe chose = r;
    chose.backend.prefill_environment.emplace_back(name, value);
    srt::Plan plan = srt::make_plan(chose, srt::default_profile(), inputs(2));
    srt::Process w = *plan.find("prefill:0");
    srt::apply_binding(w, b, "192.168.9.1", srt::default_profile(), 4242);
    CHECK(arg_after(w, "--kv-transfer-config").find("ib_device") == std::string::npos);
    CHECK(env_of(w, "MC_CUSTOM_TOPO_JSON") == "<unset>");  // it would override any device filter
    CHECK(env_of(w, name) == value);
    CHECK(env_of(w, "ATOM_NUMA_NODE") == "0,0");  // the rest of the binding still applies
  }
  // Matched rails switched off (empty: ATOM reads "auto" or rail names) is no choice: the paired list.
  srt::Recipe off = r;
  off.backend.prefill_environment.emplace_back("ATOM_MOONCAKE_MATCHED_RAILS", " ");
  srt::Process w = *srt::make_plan(off, srt::default_profile(), inputs(2)).find("prefill:0");
  srt::apply_binding(w, b, "192.168.9.1", srt::default_profile(), 4242);
  CHECK(env_of(w, "ATOM_MOONCAKE_IB_DEVICE") == "ionic_4,ionic_0");
}

TEST_CASE("benchmark: a command that reads SRT_BENCHMARK_CONCURRENCIES is planned one step per point") {
  srt::Recipe r = dsv4_2p1d();
  r.benchmark.concurrencies = {256, 512, 768};
  r.benchmark.command = "for c in ${SRT_BENCHMARK_CONCURRENCIES:-256 512 768}; do bench $c; done";
  const srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(3));
  CHECK(plan.benchmark_points == std::vector<int>{256, 512, 768});
  // The planned step, started by hand, still runs the whole grid.
  CHECK(env_of(*plan.find("benchmark"), "SRT_BENCHMARK_CONCURRENCIES") == "256 512 768");
  CHECK(srt::plan_to_json(plan)["benchmark_points"] == srt::Json::array({256, 512, 768}));

  // A command that never names the variable loops over the grid itself: one step, as srtctl runs it.
  r.benchmark.command = "for c in 256 512 768; do bench $c; done";
  const srt::Plan whole = srt::make_plan(r, srt::default_profile(), inputs(3));
  CHECK(whole.benchmark_points.empty());
  CHECK(env_of(*whole.find("benchmark"), "SRT_BENCHMARK_CONCURRENCIES") == "<unset>");
  CHECK(whole.digest != plan.digest);

  // No grid: nothing to split, whatever the command reads.
  r.benchmark.command = "bench ${SRT_BENCHMARK_CONCURRENCIES:-1}";
  r.benchmark.concurrencies.clear();
  CHECK(srt::make_plan(r, srt::default_profile(), inputs(3)).benchmark_points.empty());
}

TEST_CASE("host_setup: the recipe's block, else the profile's default, on the nodes it names") {
  srt::Recipe r = dsv4_2p1d();
  const srt::Plan none = srt::make_plan(r, srt::default_profile(), inputs(3));
  CHECK_FALSE(none.host_setup);
  CHECK_FALSE(srt::plan_to_json(none).contains("host_setup"));  // Plans without one keep their JSON and digest

  srt::Profile profile = srt::default_profile();
  profile.default_host_setup.given = true;
  profile.default_host_setup.commands = {"sudo -n rocm-smi --setperfdeterminism 1900", "true"};
  profile.default_host_setup.teardown = {"sudo -n rocm-smi --resetperfdeterminism"};
  const srt::Plan cluster = srt::make_plan(r, profile, inputs(3));
  REQUIRE(cluster.host_setup);
  CHECK(cluster.host_setup->from == "profile");
  CHECK(cluster.host_setup->script == "sudo -n rocm-smi --setperfdeterminism 1900 && true");
  CHECK(cluster.host_setup->nodes == std::vector<std::string>{"mi355x-01", "mi355x-02", "mi355x-03"});
  CHECK(cluster.digest != none.digest);

  // The recipe's block replaces the default whole; an empty one opts out of it.
  r.host_setup.given = true;
  r.host_setup.commands = {"bash check-rdma.sh"};
  r.host_setup.nodes = "workers";
  r.host_setup.timeout_seconds = 1200;
  const srt::Plan own = srt::make_plan(r, profile, inputs(3));
  REQUIRE(own.host_setup);
  CHECK(own.host_setup->from == "recipe");
  CHECK(own.host_setup->teardown.empty());
  CHECK(own.host_setup->timeout_seconds == 1200);
  CHECK(srt::plan_to_json(own)["host_setup"]["timeout_seconds"] == 1200);
  r.host_setup.commands.clear();
  CHECK_FALSE(srt::make_plan(r, profile, inputs(3)).host_setup);
}

TEST_CASE("frontend.type: atom: the one aggregated ATOM worker serves on the public port, with no router") {
  srt::Recipe r = dsv4_1p1d();
  r.resources.prefill_nodes = r.resources.decode_nodes = r.resources.prefill_workers = r.resources.decode_workers = 0;
  r.resources.agg_nodes = r.resources.agg_workers = 1;
  r.resources.gpus_per_agg = 8;
  r.backend.aggregated_config = r.backend.decode_config;
  r.frontend.type = "atom";
  const srt::Plan plan = srt::make_plan(r, srt::default_profile(), inputs(1));
  CHECK(plan.find("router") == nullptr);
  const srt::Process& w = *plan.find("agg:0");
  CHECK(arg_after(w, "--server-port") == "8000");  // srtctl's frontends/atom.py: the public port
  CHECK(w.ports.http == std::vector<int>{8000});
  CHECK(w.readiness.port == 8000);
  CHECK(job_env(plan, "SRT_FRONTEND_PORT") == "8000");
  CHECK(job_env(plan, "SRT_FRONTEND_HOST") == plan.nodes.at(std::size_t(w.node_index)).address);
  no_port_twice(plan);
}

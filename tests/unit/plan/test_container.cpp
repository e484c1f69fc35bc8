// Each process's container spec, as the Plan computes it: the image per role through the
// profile's aliases, srtctl's mount order with later mounts replacing earlier ones, devices
// marked as such, RDMA only for workers, kv-relays on the host, and all of it in the digest.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "recipes.hpp"

using namespace test_recipes;

namespace {

std::vector<std::string> mount_words(const srt::ContainerSpec& c) {
  std::vector<std::string> out;
  for (const auto& m : c.mounts)
    out.push_back(m.host + ":" + m.container + (m.read_only ? ":ro" : "") + (m.device ? " dev" : ""));
  return out;
}

srt::Profile lab_profile() {
  srt::Profile p = srt::default_profile();
  p.results_root = "/shared/results";
  p.default_mounts = {{"/shared/hf", "/hf_hub_cache"}, {"/shared/ws", "/ws"}};
  p.containers = {{"atom-nightly", "rocm/atom-dev:nightly_202608251555"}};
  p.model_paths = {{"dsv4", "/models/DeepSeek-V4-Pro"}};
  return p;
}

}  // namespace

TEST_CASE("container spec: srtctl's mount order, the job's directories first, later mounts win") {
  srt::Recipe r = dsv4_1p1d();
  r.model.path = "dsv4";
  r.model.container = "atom-nightly";
  r.extra_mount = {"/scratch", "/opt/a:/a:ro"};
  r.container_mounts = {{"/shared/other-ws", "/ws"}};
  srt::Profile p = lab_profile();
  p.output_dir = "/shared/out";
  const srt::Plan plan = srt::make_plan(r, p, inputs(2, 77));
  const srt::Process& w = *plan.find("prefill:0");
  CHECK(w.container.image == "rocm/atom-dev:nightly_202608251555");
  CHECK_FALSE(w.container.on_host);
  CHECK(mount_words(w.container) == std::vector<std::string>{
                                        "/shared/out/77/logs:/logs", "/shared/results/77:/results/77",
                                        "/models/DeepSeek-V4-Pro:/models/DeepSeek-V4-Pro:ro", "/dev/kfd:/dev/kfd dev",
                                        "/dev/dri:/dev/dri dev", "/shared/hf:/hf_hub_cache",
                                        "/shared/other-ws:/ws",  // the recipe's replaces the profile's in place
                                        "/scratch:/scratch", "/opt/a:/a:ro"});
  CHECK_FALSE(w.container.unlimited_memlock);  // tcp: no RDMA
  // H1: the job's own results directory, never the whole root where the next job's will be.
  for (const auto& m : w.container.mounts) CHECK(m.host != p.results_root);
  CHECK(srt::job_directory(p, 77) == "/shared/out/77");
  p.output_dir.clear();
  CHECK(srt::job_directory(p, 77) == "/shared/results/77");
}

TEST_CASE("container spec: the router and the benchmark may run their own images") {
  srt::Recipe r = dsv4_1p1d();
  r.model.container = "atom-nightly";
  r.frontend.container_image = "rocm/atom-mesh:1";
  const srt::Plan plan = srt::make_plan(r, lab_profile(), inputs(2));
  CHECK(plan.find("router")->container.image == "rocm/atom-mesh:1");
  CHECK(plan.find("benchmark")->container.image == "rocm/atom-dev:nightly_202608251555");
  r.benchmark.container_image = "atom-nightly";  // aliases apply to every role
  r.frontend.container_image.clear();
  const srt::Plan again = srt::make_plan(r, lab_profile(), inputs(2));
  CHECK(again.find("router")->container.image == "rocm/atom-dev:nightly_202608251555");
  CHECK(again.find("benchmark")->container.image == "rocm/atom-dev:nightly_202608251555");
}

TEST_CASE("container spec: RDMA workers get the devices, the providers read-only and unlimited memlock") {
  srt::Recipe r = dsv4_1p1d();
  r.backend.mooncake_protocol = "rdma";
  const srt::Plan plan = srt::make_plan(r, lab_profile(), inputs(2));
  const srt::ContainerSpec& w = plan.find("decode:0")->container;
  const std::vector<std::string> words = mount_words(w);
  CHECK(std::vector<std::string>(words.end() - 3, words.end()) ==
        std::vector<std::string>{"/dev/infiniband:/dev/infiniband dev", "/etc/libibverbs.d:/etc/libibverbs.d:ro",
                                 "/usr/lib/x86_64-linux-gnu/libibverbs:/usr/lib/x86_64-linux-gnu/libibverbs:ro"});
  CHECK(w.unlimited_memlock);
  // The router moves no KV bytes: no RDMA devices, no memlock.
  const srt::ContainerSpec& router = plan.find("router")->container;
  for (const auto& m : router.mounts) CHECK(m.container != "/dev/infiniband");
  CHECK_FALSE(router.unlimited_memlock);
}

TEST_CASE("container spec: an aggregated worker moves no KV bytes: no RDMA devices, whatever the connector") {
  // An aggregated ATOM recipe with the connector left at its default (InferenceX's single-node
  // agentic recipes): the worker runs with no peer, so needs neither the devices nor memlock.
  srt::Recipe r = dsv4_1p1d();
  r.resources.prefill_nodes = r.resources.decode_nodes = 0;
  r.resources.prefill_workers = r.resources.decode_workers = 0;
  r.resources.decode_nodes_given = false;
  r.resources.agg_nodes = 1;
  r.resources.agg_workers = 1;
  r.resources.gpus_per_agg = 8;
  r.backend.aggregated_config = r.backend.prefill_config;
  r.backend.mooncake_protocol = "rdma";
  const srt::Plan plan = srt::make_plan(r, lab_profile(), inputs(1));
  const srt::Process* agg = plan.find("agg:0");
  REQUIRE(agg);
  for (const auto& m : agg->container.mounts) {
    CHECK(m.container != "/dev/infiniband");
    CHECK(m.container != "/etc/libibverbs.d");
  }
  CHECK_FALSE(agg->container.unlimited_memlock);
}

TEST_CASE("container spec: a kv-relay runs on the host") {
  srt::Recipe r = dsv4_2p1d();
  r.backend.enable_kv_events = true;
  srt::PlanInputs in = inputs(3);
  in.kv_events_capability = "connect";
  const srt::Plan plan = srt::make_plan(r, srt::default_profile(), in);
  int relays = 0;
  for (const auto& p : plan.processes) {
    if (p.role != srt::Role::kv_relay) continue;
    ++relays;
    CHECK(p.container.on_host);
    CHECK(p.container.mounts.empty());
  }
  CHECK(relays == 3);
}

TEST_CASE("a change to an image, a mount or a device changes the Plan digest") {
  const srt::Recipe base = dsv4_1p1d();
  const srt::Profile profile = lab_profile();
  const std::string d0 = srt::make_plan(base, profile, inputs(2)).digest;
  srt::Recipe image = base;
  image.model.container = "rocm/atom-dev:other";
  CHECK(srt::make_plan(image, profile, inputs(2)).digest != d0);
  srt::Recipe mount = base;
  mount.extra_mount = {"/scratch"};
  CHECK(srt::make_plan(mount, profile, inputs(2)).digest != d0);
  srt::Recipe ro = mount;
  ro.extra_mount = {"/scratch:/scratch:ro"};
  CHECK(srt::make_plan(ro, profile, inputs(2)).digest != srt::make_plan(mount, profile, inputs(2)).digest);
  srt::Profile devices = profile;
  devices.rdma_mounts.emplace_back("/dev/infiniband/uverbs9", "/dev/infiniband/uverbs9");
  srt::Recipe rdma = base;
  rdma.backend.mooncake_protocol = "rdma";
  CHECK(srt::make_plan(rdma, devices, inputs(2)).digest != srt::make_plan(rdma, profile, inputs(2)).digest);
  srt::Profile aliased = profile;
  aliased.containers["rocm/atom-dev:nightly_202608251555"] = "registry.local/atom:pinned";
  srt::Recipe named = base;
  named.model.container = "rocm/atom-dev:nightly_202608251555";
  CHECK(srt::make_plan(named, aliased, inputs(2)).digest != srt::make_plan(named, profile, inputs(2)).digest);
}

TEST_CASE("setup_script: every worker and the router run it from /configs, the profile's directory read-only") {
  srt::Recipe r = dsv4_1p1d();
  r.setup_script = "pip-runtime-deps.sh";
  srt::Profile p = lab_profile();
  p.setup_scripts_dir = "/shared/srt-slurm/configs";
  const srt::Plan plan = srt::make_plan(r, p, inputs(2));
  for (const char* name : {"prefill:0", "decode:0", "router"}) {
    INFO(name);
    const srt::Process& proc = *plan.find(name);
    CHECK(proc.setup_script == "/configs/pip-runtime-deps.sh");
    CHECK(mount_words(proc.container).back() == "/shared/srt-slurm/configs:/configs:ro");
  }
  // The benchmark runs without it, as srtctl's benchmark step does.
  const srt::Process& bench = *plan.find("benchmark");
  CHECK(bench.setup_script.empty());
  for (const auto& m : bench.container.mounts) CHECK(m.container != "/configs");
  // The argv stays the program's (what the CLI specs check); the digest says a script runs.
  CHECK(plan.find("prefill:0")->argv.front() != "bash");
  r.setup_script.clear();
  CHECK(srt::make_plan(r, p, inputs(2)).digest != plan.digest);

  // On the host (container_runtime none) the script is where the profile says.
  r.setup_script = "pip-runtime-deps.sh";
  p.container_runtime = srt::ContainerRuntime::none;
  CHECK(srt::make_plan(r, p, inputs(2)).find("router")->setup_script == "/shared/srt-slurm/configs/pip-runtime-deps.sh");

  // A recipe that names one on a cluster that runs none: refused, saying where it would be looked for.
  p.setup_scripts_dir.clear();
  CHECK_THROWS_WITH(srt::make_plan(r, p, inputs(2)), Catch::Contains("names no setup_scripts_dir"));
}

// Node side (slurmstepd, remote context): user_init sets what make_plan/step_environment say for
// this node, task_init binds a worker or fails the job with the reason; never a failed user_init.
#include <sched.h>
#include <unistd.h>
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <tuple>

#include "glue.hpp"
#include "slurmapi/addresses.hpp"
#include "srt/contract.hpp"
#include "srt/document.hpp"
#include "srt/plan.hpp"
#include "srt/topology.hpp"
#include "srt/files.hpp"

extern "C" {
#include <slurm/slurm.h>
}

using namespace srt::glue_test;
using Catch::Matchers::Contains;
namespace fake = srt::fake;

namespace {

const std::string kTopology = source_path("tests/fixtures/topology/mi355x-8gpu-cx7.xml");

// A submitted job: sbatch ran the submit side on `recipe`; the snapshot is what reached the job.
struct Job {
  TempDir dir;
  std::string profile_path;
  std::string recipe;
  std::string snapshot;
  std::vector<std::string> plugstack;

  explicit Job(const std::string& rel, bool one_host = false)
      : profile_path(write_lab_profile(dir, "", one_host)),
        recipe(source_path(rel)),
        plugstack(lab_plugstack(dir, profile_path)) {
    plugstack.push_back("topology=" + kTopology);
    ::unsetenv(SRT_SNAPSHOT_JOB_ENV);
    fake::reset(S_CTX_ALLOCATOR);
    REQUIRE(call_impl("init_post_opt", {recipe.c_str(), nullptr, plugstack}) == 0);
    snapshot = fake::process().job_control.at(SRT_SNAPSHOT_NAME);
    ::unsetenv(SRT_SNAPSHOT_JOB_ENV);
  }

  // What core computes for this job on lab-n1..lab-n<nodes> (job 4242), independently of the plugin.
  srt::Plan plan(int nodes) const {
    const srt::Profile profile = srt::load_profile_file(profile_path);
    srt::RecipeOptions ro;
    ro.default_gpus_per_node = profile.gpus_per_node;
    const srt::Recipe r = srt::load_recipe_text(srt::read_text_file(recipe, srt::LoadLimits{}.max_bytes), recipe, ro);
    srt::PlanInputs in;
    for (int n = 1; n <= nodes; ++n) in.nodes.push_back("lab-n" + std::to_string(n));
    in.job_id = 4242;
    in.recipe_path = recipe;
    in.addresses = srt::slurmapi::resolve_addresses(in.nodes, profile);
    return srt::make_plan(r, profile, in);
  }

  int user_init(const char* step = nullptr) const { return call_impl("user_init", {nullptr, step, plugstack}); }
};

// task_init in "the task": returns its result and what it wrote to stderr; the test process's
// CPU affinity is put back afterwards.
std::pair<int, std::string> task_init(const std::vector<std::string>& plugstack, cpu_set_t* bound = nullptr) {
  cpu_set_t before;
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  int rc = 0;
  std::string err = capture_stderr([&] { rc = call_impl("task_init", {nullptr, nullptr, plugstack}); });
  if (bound) REQUIRE(sched_getaffinity(0, sizeof *bound, bound) == 0);
  REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
  return {rc, err};
}

void require_env_is(const srt::StepEnvironment& want) {
  const auto& env = fake::process().job_env;
  REQUIRE_FALSE(want.set.empty());
  for (const auto& [name, value] : want.set) {
    INFO(name);
    REQUIRE(env.count(name) == 1);
    CHECK(env.at(name) == value);
  }
  for (const auto& name : want.unset) CHECK(env.count(name) == 0);
}

}  // namespace

TEST_CASE("user_init on each node of a 3-node job sets exactly the Plan's job environment", "[spank][node]") {
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");
  // Larger than the first spank_getenv buffer (4 KiB): the ESPANK_NOSPACE re-read is exercised.
  REQUIRE(job.snapshot.size() > 4096);
  const srt::Plan plan = job.plan(3);
  for (std::uint32_t node = 0; node < 3; ++node) {
    INFO("node " << node);
    become_stepd(job.snapshot, 3, 0, node);
    REQUIRE(job.user_init() == 0);
    INFO(log_text());
    CHECK(fake::process().log.empty());
    require_env_is(srt::step_environment(plan, int(node), ""));
    const auto& env = fake::process().job_env;
    CHECK(env.at("SRT_NODE_INDEX") == std::to_string(node));
    CHECK(env.at("SRT_HEAD_NODE") == "lab-n1");
    CHECK(env.at("SRT_FRONTEND_HOST") == "10.77.0.1");
    CHECK(env.at("SRT_RECIPE") == job.recipe);
    CHECK(env.at("SRT_PLAN_DIGEST") == plan.digest);
    CHECK(env.count("SRT_STEP") == 0);  // no --srt-step: no worker variables
    const auto [rc, err] = task_init(job.plugstack);
    CHECK(rc == 0);
    CHECK(err.empty());
  }
}

TEST_CASE("a one-node step finds its node through SLURM_STEP_NODELIST, the batch step through the job's", "[spank][node]") {
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");
  const srt::Plan plan = job.plan(3);

  become_stepd(job.snapshot, 3, 5, 0);  // srun -N1 -w lab-n3
  fake::process().job_env["SLURM_STEP_NODELIST"] = "lab-n3";
  REQUIRE(job.user_init() == 0);
  CHECK(fake::process().job_env.at("SRT_NODE_INDEX") == "2");
  require_env_is(srt::step_environment(plan, 2, ""));

  become_stepd(job.snapshot, 3, SLURM_BATCH_SCRIPT, 0);
  fake::process().job_env.erase("SLURM_STEP_NODELIST");
  fake::process().items.erase(S_JOB_NODEID);  // not meaningful in the batch step
  REQUIRE(job.user_init() == 0);
  INFO(log_text());
  CHECK(fake::process().job_env.at("SRT_NODE_INDEX") == "0");
  CHECK(task_init(job.plugstack).first == 0);

  become_stepd(job.snapshot, 3, SLURM_EXTERN_CONT, 0);
  const auto before = fake::process().job_env;
  REQUIRE(job.user_init() == 0);
  CHECK(fake::process().job_env == before);  // no tasks run in the extern step
  CHECK(task_init(job.plugstack).first == 0);
}

TEST_CASE("a worker step gets the worker's environment and binding from the node's topology", "[spank][node]") {
  // Every node at 127.0.0.1: this process's host is each node in turn, and a worker's planned
  // address must be one of its node's own (the next test case).
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml", true);
  const srt::Plan plan = job.plan(3);
  for (const char* step : {"prefill:0", "prefill:1", "decode:0"}) {
    INFO(step);
    const srt::Process* w = plan.find(step);
    REQUIRE(w != nullptr);
    become_stepd(job.snapshot, 3, 1, 0);
    auto& env = fake::process().job_env;
    env["SLURM_STEP_NODELIST"] = w->node;
    env["ROCR_VISIBLE_DEVICES"] = "0,1,2,3,4,5,6,7";
    env["SLURM_STEP_GPUS"] = "0,1,2,3,4,5,6,7";
    REQUIRE(job.user_init(step) == 0);
    INFO(log_text());
    REQUIRE(fake::process().log.empty());

    const srt::Profile profile = srt::load_profile_file(job.profile_path);
    srt::StepEnvironment want = srt::step_environment(plan, w->node_index, step);
    srt::NodeGrant grant;
    grant.visible_devices = grant.node_gpus = "0,1,2,3,4,5,6,7";
    grant.host_ip = plan.nodes.at(std::size_t(w->node_index)).address;  // the node's own: the step checks it
    srt::TopologyOptions topo;
    topo.xml_path = kTopology;
    srt::bind_step(want, srt::load_topology(topo), grant, profile);
    require_env_is(want);
    CHECK(env.at("SRT_STEP") == step);
    CHECK(env.at("SRT_WORKER_ROLE") == srt::to_string(w->role));
    REQUIRE_FALSE(want.cpus.empty());

    // task_init narrows the task to the worker's cores, never beyond what it already had.
    cpu_set_t before, after;
    REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
    const auto [rc, err] = task_init(job.plugstack, &after);
    CHECK(rc == 0);
    INFO(err);
    const std::vector<int> worker_cpus = srt::cpulist_members(want.cpus);
    bool overlap = false;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      const bool in_worker = std::find(worker_cpus.begin(), worker_cpus.end(), c) != worker_cpus.end();
      if (CPU_ISSET(c, &after)) CHECK(CPU_ISSET(c, &before));
      if (CPU_ISSET(c, &before) && in_worker) overlap = true;
      if (CPU_ISSET(c, &before) && in_worker) CHECK(CPU_ISSET(c, &after));
    }
    if (!overlap) CHECK_THAT(err, Contains("outside this task's grant"));
    else CHECK(err.empty());
  }
}

TEST_CASE("a worker step on the wrong node or an unknown worker fails the job in task_init", "[spank][node]") {
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml");
  const srt::Plan plan = job.plan(3);
  const srt::Process* w = plan.find("decode:0");
  REQUIRE(w != nullptr);
  const std::string other = w->node_index == 0 ? "lab-n2" : "lab-n1";

  become_stepd(job.snapshot, 3, 1, 0);
  fake::process().job_env["SLURM_STEP_NODELIST"] = other;
  REQUIRE(job.user_init("decode:0") == 0);  // never fails user_init: that would drain the node
  auto [rc, err] = task_init(job.plugstack);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("srt: this job cannot run: --srt-step=decode:0 runs on " + w->node));

  become_stepd(job.snapshot, 3, 1, 0);
  REQUIRE(job.user_init("decode:9") == 0);
  std::tie(rc, err) = task_init(job.plugstack);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("--srt-step=decode:9: the recipe has no such worker"));

  // The next step on the node is judged on its own (a previous step's error does not stick).
  become_stepd(job.snapshot, 3, 2, 0);
  REQUIRE(job.user_init() == 0);
  CHECK(task_init(job.plugstack).first == 0);
}

TEST_CASE("a worker step on a node that does not hold its planned data address fails the job in task_init",
          "[spank][node]") {
  // lab-n1 is planned at 10.77.0.1, which no interface of this host has: the name service (here
  // node_addresses) disagrees with the node, and ATOM_HOST_IP would send KV bytes nowhere.
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");
  const srt::Plan plan = job.plan(2);
  const srt::Process* w = plan.find("prefill:0");
  REQUIRE(w != nullptr);
  become_stepd(job.snapshot, 2, 1, 0);
  fake::process().job_env["SLURM_STEP_NODELIST"] = w->node;
  REQUIRE(job.user_init("prefill:0") == 0);  // never fails user_init: that would drain the node
  const auto [rc, err] = task_init(job.plugstack);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("srt: this job cannot run: data_network: node " + w->node + ": the address every node plans "
                           "for it, " + plan.nodes[std::size_t(w->node_index)].address + ", is on none of its interfaces"));
  // A step that is not a worker advertises nothing: the node's other steps still run.
  become_stepd(job.snapshot, 2, 2, 0);
  REQUIRE(job.user_init() == 0);
  CHECK(task_init(job.plugstack).first == 0);
}

TEST_CASE("a node whose profile differs from the submit host's fails the job with both digests", "[spank][node]") {
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");
  TempDir node_dir;
  const std::string node_profile = write_lab_profile(node_dir, "# edited on this node only\n");
  const std::vector<std::string> node_plugstack = lab_plugstack(node_dir, node_profile);

  become_stepd(job.snapshot, 2, 0, 1);
  REQUIRE(call_impl("user_init", {nullptr, nullptr, node_plugstack}) == 0);
  CHECK_THAT(log_text(), Contains("error: srt: the cluster profile on lab-n2 differs"));
  CHECK(fake::process().job_env.count("SRT_NODE_INDEX") == 0);
  const auto [rc, err] = task_init(node_plugstack);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("srt: this job cannot run: the cluster profile on lab-n2 differs from the one the job was checked against"));
  CHECK_THAT(err, Contains(srt::load_profile_file(node_profile).digest.substr(0, 12)));
}

TEST_CASE("L4: a node with neither root's copy of its profile nor the submit library fails the job saying what to run",
          "[spank][node]") {
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");
  TempDir empty;
  const std::vector<std::string> words{"profile=" + job.profile_path, "cache_dir=" + empty.str(),
                                       "impl=/nonexistent/srt_spank_impl.so"};
  become_stepd(job.snapshot, 2, 0, 1);
  REQUIRE(call_impl("user_init", {nullptr, nullptr, words}) == 0);
  CHECK(fake::process().job_env.count("SRT_NODE_INDEX") == 0);
  const auto [rc, err] = task_init(words);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("srt: this job cannot run: lab-n2 cannot read its own profile " + job.profile_path +
                           ": no parsed copy of " + job.profile_path + " in " + empty.str() +
                           ", and cannot load the profile reader /nonexistent/srt_spank_impl.so"));
  CHECK_THAT(err, Contains("run 'srt-helper topology --refresh-cache --cache-dir " + empty.str() + "' as root on every node"));
}

TEST_CASE("L4: a profile copy another user could write is not used", "[spank][node]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to give the copy another owner");
    return;
  }
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");
  const std::string copy = job.dir.str() + "/cache/profile-" + srt::load_profile_file(job.profile_path).digest + ".cbor";
  REQUIRE(::chown(copy.c_str(), 65534, 65534) == 0);
  std::vector<std::string> words = job.plugstack;
  words.push_back("impl=/nonexistent/srt_spank_impl.so");
  become_stepd(job.snapshot, 2, 0, 1);
  REQUIRE(call_impl("user_init", {nullptr, nullptr, words}) == 0);
  const auto [rc, err] = task_init(words);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("profile copy '" + copy + "' is owned by uid 65534 or writable by others"));
}

TEST_CASE("an unknown plugstack.conf argument on a node fails the job, not the node", "[spank][node]") {
  Job job("recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml");
  const std::vector<std::string> typo{"profile=" + job.profile_path, "cache-dir=/tmp"};
  become_stepd(job.snapshot, 2, 0, 0);
  REQUIRE(call_impl("user_init", {nullptr, nullptr, typo}) == 0);
  const auto [rc, err] = task_init(typo);
  CHECK(rc == -1);
  CHECK_THAT(err, Contains("unknown plugstack.conf argument 'cache-dir=/tmp' for spank_srt.so"));
  CHECK(call_impl("exit", {nullptr, nullptr, typo}) == 0);
}

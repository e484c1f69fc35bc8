// The one entry point every planner goes through (srt/job_plan.hpp): a snapshot planned as a
// node plans it, this node found in the job, the submit-side check, the re-plan with what
// preflight found, and which node a slurmstepd is from Slurm's facts.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "file_snapshot.hpp"
#include "recipes.hpp"
#include "srt/error.hpp"
#include "srt/job_plan.hpp"
#include "srt/document.hpp"
#include "srt/files.hpp"

using namespace test_recipes;

namespace {

const std::string kRecipe = std::string(SRT_SOURCE_DIR) + "/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml";

srt::Snapshot snapshot() { return file_snapshot(kRecipe, srt::default_profile()); }

srt::JobFacts facts(const std::string& here = "") {
  srt::JobFacts f;
  f.nodes = node_names(3);
  f.job_id = 991;
  f.this_node = here;
  for (const auto& n : f.nodes) f.addresses[n] = "10.1.0." + std::to_string(n.back() - '0');
  return f;
}

}  // namespace

TEST_CASE("plan_job reads the snapshot as a node does and plans the job") {
  const srt::Profile profile = srt::default_profile();
  const srt::JobPlan job = plan_job(snapshot(), profile, facts("mi355x-02"));
  CHECK(job.node_index == 1);
  CHECK(job.plan.job_id == 991);
  CHECK(job.plan.nodes[2].address == "10.1.0.3");
  CHECK(job.inputs.recipe_path == kRecipe);
  // The same as reading the file with the profile's GPU count and planning it by hand.
  srt::RecipeOptions ro;
  ro.default_gpus_per_node = profile.gpus_per_node;
  srt::PlanInputs in;
  in.nodes = facts().nodes;
  in.job_id = 991;
  in.addresses = facts().addresses;
  in.recipe_path = kRecipe;
  CHECK(job.plan.digest == srt::make_plan(srt::load_recipe_file(kRecipe, ro), profile, in).digest);
  // Every node of the job computes the same Plan; only node_index differs.
  for (const auto& n : facts().nodes) CHECK(plan_job(snapshot(), profile, facts(n)).plan.digest == job.plan.digest);
  CHECK(plan_job(snapshot(), profile, facts()).node_index == -1);
}

TEST_CASE("plan_job refuses a node that is not the job's") {
  CHECK_THROWS_WITH(plan_job(snapshot(), srt::default_profile(), facts("mi355x-09")),
                    Catch::Contains("node mi355x-09 is not in the job's node list"));
}

TEST_CASE("plan_submission plans on as many placeholder nodes as the recipe needs") {
  srt::RecipeOptions ro;
  ro.default_gpus_per_node = 8;
  const srt::JobPlan job = srt::plan_submission(srt::load_recipe_file(kRecipe, ro), kRecipe, srt::default_profile());
  REQUIRE(job.plan.nodes.size() == 3);
  CHECK(job.plan.nodes[0].name == "node0");
  CHECK(job.plan.nodes[2].name == "node2");
  // A recipe no node could plan is refused here, before the job is queued.
  srt::Recipe bad = dsv4_2p1d();
  bad.backend.type = "trtllm";  // vllm was the example until its adapter
  CHECK_THROWS_WITH(srt::plan_submission(bad, "x.yaml", srt::default_profile()), Catch::Contains("can be validated but not planned yet"));
}

TEST_CASE("replan: the job's own inputs with what preflight found about KV events") {
  srt::Recipe r = dsv4_2p1d();
  r.backend.enable_kv_events = true;
  const srt::JobPlan job = plan_job(r, "r.yaml", srt::default_profile(), facts());
  CHECK(job.plan.kv_events_mode == srt::KvMode::offset);
  const srt::Plan relay = srt::replan(job.recipe, job.inputs, srt::default_profile(), "connect");
  CHECK(relay.kv_events_mode == srt::KvMode::relay);
  CHECK(relay.job_id == job.plan.job_id);
  CHECK(relay.nodes[1].name == job.plan.nodes[1].name);
}

TEST_CASE("step_node_name: the batch script on the first node, a task on its step's node") {
  const std::vector<std::string> job = {"n1", "n2", "n3", "n4"};
  CHECK(srt::step_node_name(job, true, {}, 0) == "n1");
  CHECK(srt::step_node_name(job, true, {"n3"}, 0) == "n1");  // the batch step ignores step facts
  CHECK(srt::step_node_name(job, false, {"n2", "n4"}, 0) == "n2");
  CHECK(srt::step_node_name(job, false, {"n2", "n4"}, 1) == "n4");
  CHECK_THROWS_WITH(srt::step_node_name(job, false, {"n2", "n4"}, 2),
                    Catch::Contains("node index is outside the step's node list (index 2, 2 nodes)"));
  CHECK_THROWS_WITH(srt::step_node_name({}, true, {}, 0), Catch::Contains("no nodes"));
}

TEST_CASE("roles are typed inside the Plan and named only at its edges") {
  for (srt::Role r : {srt::Role::prefill, srt::Role::decode, srt::Role::agg, srt::Role::router, srt::Role::benchmark,
                      srt::Role::kv_relay})
    CHECK(srt::role_named(srt::to_string(r)) == r);
  CHECK(std::string(srt::to_string(srt::Role::kv_relay)) == "kv-relay");
  CHECK_FALSE(srt::role_named("frontend").has_value());
  CHECK_FALSE(srt::role_named("").has_value());
  CHECK(srt::names_worker("agg"));
  CHECK_FALSE(srt::names_worker("router"));
  CHECK_FALSE(srt::names_worker("prefill:0"));
  // plan.json spells each process's role by name.
  const srt::Plan plan = srt::make_plan(dsv4_1p1d(), srt::default_profile(), inputs(2));
  const srt::Json j = srt::plan_to_json(plan);
  for (std::size_t i = 0; i < plan.processes.size(); ++i)
    CHECK(j["processes"][i]["role"] == srt::to_string(plan.processes[i].role));
}

TEST_CASE("a snapshot whose counts overflow is a clear error on the node, never a crash") {
  // A snapshot is bytes the user can build with a valid digest: the node plans it all the same,
  // and slurmstepd (user_init) must end with an error line, not a signal.
  for (const srt::Json& dp : {srt::Json(1 << 30), srt::Json(4294967298LL), srt::Json("4294967298")}) {
    INFO(dp.dump());
    srt::Snapshot s = snapshot();
    s.recipe["roles"]["decode"]["args"]["data-parallel-size"] = dp;
    try {
      (void)plan_job(s, srt::default_profile(), facts("mi355x-01"));
      FAIL("planned");
    } catch (const srt::Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("data-parallel-size") && Catch::Contains("from 1 to 1024"));
    }
  }
}

TEST_CASE("the Plan refuses counts the recipe's rules were not asked about") {
  // A Recipe built by hand never met the rules: the planner's own reading still refuses.
  srt::Recipe r = srt::load_recipe_file(kRecipe, srt::job_recipe_options(srt::default_profile()));
  srt::PlanInputs in;
  in.nodes = facts().nodes;
  in.job_id = 991;
  r.backend.decode_config["data-parallel-size"] = 1 << 30;
  CHECK_THROWS_WITH(srt::make_plan(r, srt::default_profile(), in), Catch::Contains("from 1 to 1024"));
  r.backend.decode_config["data-parallel-size"] = 1024;
  r.backend.decode_config["pipeline-parallel-size"] = 1024;
  CHECK_THROWS_WITH(srt::make_plan(r, srt::default_profile(), in), Catch::Contains("more than the 65536 an endpoint may run"));
}

// srtctl v2.18's per-role keys that the v1 layout has no spelling for (its recipe.schema.json
// RoleConfig): roles.<role>.container, .srun_options and .engine (a role's engine when the recipe
// declares none at the top), each carried to what runs and checked at the line it is on.
#include <catch2/catch.hpp>

#include <algorithm>

#include "srt/plan.hpp"
#include "srt/recipe.hpp"
#include "recipe_checks.hpp"

// The file's own namespace: in a unity build its helpers meet other files' (docs/testing.md).
namespace test_schema2_roles {

namespace {

// Line numbers below refer to this text after the `top` lines roles() puts first (none: prefill
// is line 8; a top-level engine line: 9); `{PREFILL}` and `{DECODE}` take each role's extra keys.
const std::string kRoles =
    "schema: 2\n"                                                     // 1
    "name: t\n"                                                       // 2
    "model: {path: m, container: img-a}\n"                            // 3
    "resources: {gpus_per_node: 8}\n"                                 // 4
    "frontend: {type: sglang-router, enable_multiple_frontends: false}\n"  // 5
    "srun_options: {mem: '0', exclusive: ''}\n"                       // 6
    "roles:\n"                                                        // 7
    "  prefill: {nodes: 1, workers: 1{PREFILL}}\n"                    // 8
    "  decode: {nodes: 1, workers: 1{DECODE}}\n";                     // 9

std::string roles(const std::string& top, const std::string& prefill, const std::string& decode) {
  std::string t = top + kRoles;
  t.replace(t.find("{PREFILL}"), 9, prefill);
  t.replace(t.find("{DECODE}"), 8, decode);
  return t;
}

using recipe_checks::errors8;
using recipe_checks::has_at;
using recipe_checks::load8;

srt::Plan plan_of(const srt::Recipe& r) {
  srt::PlanInputs in;
  in.job_id = 7;
  in.recipe_path = "r.yaml";
  in.nodes = {"n1", "n2"};
  in.addresses = {{"n1", "10.0.0.1"}, {"n2", "10.0.0.2"}};
  return srt::make_plan(r, srt::default_profile(), in);
}

const srt::Process& process(const srt::Plan& p, const std::string& name) {
  auto it = std::find_if(p.processes.begin(), p.processes.end(), [&](const srt::Process& x) { return x.name == name; });
  REQUIRE(it != p.processes.end());
  return *it;
}

}  // namespace

TEST_CASE("schema 2: roles.<role>.container is that role's image, in the Plan and its digest", "[recipe][schema2]") {
  const srt::Recipe plain = load8(roles("engine: sglang\n", "", ""));
  const srt::Recipe own = load8(roles("engine: sglang\n", ", container: img-b", ""));
  CHECK(own.unsupported_keys.empty());
  const srt::Plan a = plan_of(plain), b = plan_of(own);
  CHECK(process(a, "prefill:0").container.image == "img-a");
  CHECK(process(b, "prefill:0").container.image == "img-b");
  CHECK(process(b, "decode:0").container.image == "img-a");  // model.container, the default
  CHECK(process(b, "router").container.image == "img-a");
  CHECK(a.digest != b.digest);
  CHECK(has_at(errors8(roles("engine: sglang\n", ", container: ' '", "")), "roles.prefill.container", "is empty", 9));
}

TEST_CASE("schema 2: roles.<role>.srun_options go over the recipe's on that role's steps only", "[recipe][schema2]") {
  const srt::Recipe r = load8(roles("engine: sglang\n", ", srun_options: {mem: 200G, cpus-per-task: '32'}", ""));
  const srt::EnvList prefill = srt::srun_options_of(r, "prefill");
  // The recipe's order, the role's value in place of the same option, the role's new ones after.
  CHECK(prefill == srt::EnvList{{"mem", "200G"}, {"exclusive", ""}, {"cpus-per-task", "32"}});
  CHECK(srt::srun_options_of(r, "decode") == r.srun_options);
  CHECK(srt::srun_options_of(r, "router") == r.srun_options);
  // Checked as the recipe's own options are: a key written with its dashes is refused at its line.
  CHECK(has_at(errors8(roles("engine: sglang\n", ", srun_options: {--mem: 1G}", "")), "roles.prefill.srun_options.--mem",
            "is written with its dashes", 9));
}

TEST_CASE("schema 2: with no top-level engine, every role names the same one", "[recipe][schema2]") {
  // The same engine on both roles, a name or a mapping, is the recipe's engine with its options.
  const srt::Recipe named = load8(roles("", ", engine: vllm", ", engine: vllm"));
  CHECK(named.backend.type == "vllm");
  const std::string mapping = ", engine: {type: sglang, gpu_type: mi355x}";
  const srt::Recipe mapped = load8(roles("", mapping, mapping));
  CHECK(mapped.backend.type == "sglang");
  CHECK(plan_of(mapped).digest == plan_of(load8(roles("engine: {type: sglang, gpu_type: mi355x}\n", "", ""))).digest);
  // srt-spank runs one engine configuration per job; a role without one, or a different one, is
  // refused where it is written; the engine's own keys are checked at their lines.
  CHECK(has_at(errors8(roles("", ", engine: vllm", ", engine: sglang")), "roles.decode.engine", "differs from roles.prefill.engine", 9));
  CHECK(has_at(errors8(roles("", ", engine: vllm", "")), "roles.decode", "names no engine", 9));
  CHECK(has_at(errors8(roles("", ", engine: {type: sglang, bogus: 1}", ", engine: {type: sglang, bogus: 1}")),
            "roles.prefill.engine.bogus", "unknown key", 8));
  CHECK(has_at(errors8(roles("", ", engine: {type: nosuch}", ", engine: {type: nosuch}")), "roles.prefill.engine.type",
            "is not one of", 8));
  // Beside a top-level engine: the same name is allowed (earlier recipes wrote it), a mapping is
  // the other form, which srtctl does not mix.
  CHECK(load8(roles("engine: sglang\n", ", engine: sglang", "")).backend.type == "sglang");
  CHECK(has_at(errors8(roles("engine: sglang\n", ", engine: {type: sglang}", "")), "roles.prefill.engine", "cannot be combined", 9));
}

}  // namespace test_schema2_roles

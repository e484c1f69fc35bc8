// libFuzzer target: make_plan on every recipe the loader accepts. Properties checked beyond "no
// crash": the Plan is deterministic (same digest twice), and no two processes on one node are
// given the same port: the collision this project exists to prevent.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "srt/error.hpp"
#include "srt/plan.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace {

constexpr int kMaxNodes = 48;  // bigger demands are valid but only slow the fuzzer down

void check_ports(const srt::Plan& plan) {
  std::map<std::pair<int, int>, const srt::Process*> seen;  // (node, port) -> owner
  for (const auto& p : plan.processes)
    p.ports.each([&](const char*, const std::vector<int>& ports) {
      for (int port : ports)
        if (!seen.emplace(std::make_pair(p.node_index, port), &p).second) __builtin_trap();
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A job may hold more nodes than the recipe needs; the length picks how many, so a plain
  // recipe file is a valid input as it is (the seeds are the shipped recipes).
  const int extra_nodes = int(size % 3);
  const std::string text(reinterpret_cast<const char*>(data), size);
  const srt::Profile profile = srt::default_profile();
  srt::RecipeOptions opts;
  opts.default_gpus_per_node = profile.gpus_per_node;
  try {
    const srt::Recipe r = srt::load_recipe_text(text, "fuzz.yaml", opts);
    const int demand = srt::node_demand(r, profile);
    if (demand < 1 || demand > kMaxNodes) return 0;
    srt::PlanInputs in;
    in.job_id = 1000 + size;
    in.recipe_path = "fuzz.yaml";
    for (int i = 0; i < demand + extra_nodes; ++i) {
      in.nodes.push_back("n" + std::to_string(i));
      in.addresses[in.nodes.back()] = "10.0." + std::to_string(i / 200) + "." + std::to_string(i % 200 + 1);
    }
    const srt::Plan a = srt::make_plan(r, profile, in);
    const srt::Plan b = srt::make_plan(r, profile, in);
    if (a.digest != b.digest || a.digest != srt::plan_digest(a)) __builtin_trap();
    check_ports(a);
    (void)srt::plan_to_json(a).dump();
  } catch (const srt::Error&) {
  }
  return 0;
}

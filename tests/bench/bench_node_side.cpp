// bench_node_side [RECIPE] [RUNS]: what one slurmstepd's user_init computes for a recipe job,
// without Slurm around it: the snapshot decoded, the node's profile file hashed, the recipe and
// the profile rebuilt from the snapshot's documents and checked, the Plan made. Beside it, the
// same from YAML text (what a node did before the node library: both files parsed with yaml-cpp), so the
// table shows what carrying the documents saves. Medians over RUNS after a warm-up.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "srt/digest.hpp"
#include "srt/files.hpp"
#include "srt/job_plan.hpp"
#include "srt/profile_copy.hpp"
#include "srt/snapshot.hpp"
#include "srt/variants.hpp"

namespace {

double median_ms(int runs, const std::function<void()>& fn) {
  std::vector<double> ms;
  for (int i = 0; i < runs + 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 20) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string src = SRT_SOURCE_DIR;
  const std::string recipe = argc > 1 && *argv[1] ? argv[1] : src + "/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml";
  const int runs = argc > 2 ? std::atoi(argv[2]) : 500;
  const std::string profile_path = src + "/etc/srt/cluster.yaml";
  const std::string profile_text = srt::read_text_file(profile_path, 1 << 20);
  const srt::Profile profile = srt::load_profile_text(profile_text, profile_path);
  const std::string text = srt::read_text_file(recipe, 1 << 20);
  auto sources = srt::open_recipe_text(text, srt::RecipeRef{recipe, "", recipe}, srt::job_recipe_options(profile));
  const std::string encoded = srt::encode_snapshot(srt::make_snapshot(recipe, text, sources.front(), profile, "bench"));

  srt::JobFacts facts;
  const int nodes = srt::node_demand(srt::load_recipe_source(sources.front(), srt::job_recipe_options(profile)), profile);
  for (int i = 0; i < nodes; ++i) facts.nodes.push_back("gpu" + std::to_string(i + 1));
  facts.job_id = 4242;
  facts.this_node = facts.nodes.back();
  for (const auto& n : facts.nodes) facts.addresses[n] = "10.0.0." + std::to_string(facts.addresses.size() + 1);

  // Root's parsed copy of the node's profile (srt/profile_copy.hpp), read back in every step.
  const std::string copy = srt::encode_profile_copy(profile.digest, profile.source.root, "bench");
  std::string digest_now, digest_yaml;
  const double decode = median_ms(runs, [&] { (void)srt::decode_snapshot(encoded); });
  const double node = median_ms(runs, [&] {
    const srt::Snapshot snap = srt::decode_snapshot(encoded);
    const std::string digest = srt::sha256_hex(profile_text);
    const srt::Profile p = srt::snapshot_profile(snap, digest, srt::decode_profile_copy(copy, digest, "bench", profile_path),
                                                 profile_path, facts.this_node);
    digest_now = srt::plan_job(snap, p, facts).plan.digest;
  });
  const double yaml = median_ms(runs, [&] {
    const srt::Profile p = srt::load_profile_text(profile_text, profile_path);
    srt::Recipe r = srt::load_recipe_text(text, recipe, srt::job_recipe_options(p));
    digest_yaml = srt::plan_job(std::move(r), recipe, p, facts).plan.digest;
  });
  std::printf("bench_node_side: %s, %d nodes, snapshot %zu bytes; %d runs, median ms\n", recipe.c_str(), nodes,
              encoded.size(), runs);
  std::printf("  decode the snapshot                           %8.3f\n", decode);
  std::printf("  node side: decode, hash profile, copy, plan   %8.3f\n", node);
  std::printf("  the same from YAML (before format 2)          %8.3f\n", yaml);
  if (digest_now != digest_yaml) {
    std::printf("bench_node_side: the two paths planned different Plans (%s vs %s)\n", digest_now.c_str(), digest_yaml.c_str());
    return 1;
  }
  return 0;
}

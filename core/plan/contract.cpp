#include "srt/contract.hpp"

#include <nettle/base64.h>

#include <cstdint>

#include "processes.hpp"
#include "srt/error.hpp"

namespace srt {

void check_step_name(const std::string& step) {
  const auto colon = step.find(':');
  const std::string role = step.substr(0, colon);
  const std::string index = colon == std::string::npos ? "" : step.substr(colon + 1);
  const bool digits = !index.empty() && index.size() < 6 &&
                      index.find_first_not_of("0123456789") == std::string::npos;
  if ((role != "prefill" && role != "decode" && role != "agg") || !digits)
    fail("--srt-step=" + step + " is not a worker name", "use ROLE:INDEX with ROLE prefill, decode or agg, e.g. --srt-step=prefill:0");
}

StepEnvironment step_environment(const Plan& plan, int node_index, const std::string& step) {
  if (node_index < 0 || node_index >= int(plan.nodes.size()))
    fail("node index " + std::to_string(node_index) + " is outside the job's " +
         std::to_string(plan.nodes.size()) + " nodes");
  const PlanNode& node = plan.nodes[std::size_t(node_index)];
  StepEnvironment out;
  out.job_id = plan.job_id;
  out.set = plan.job_env;
  std::string roles;
  for (const auto& r : node.roles) roles += (roles.empty() ? "" : ",") + r;
  out.set.emplace_back("SRT_PLAN_DIGEST", plan.digest);
  out.set.emplace_back("SRT_NODE_INDEX", std::to_string(node_index));
  out.set.emplace_back("SRT_NODE_ROLES", roles);
  if (step.empty()) return out;

  check_step_name(step);
  const Process* w = plan.find(step);
  if (!w) fail("--srt-step=" + step + ": the recipe has no such worker", "srt-helper plan RECIPE lists the workers");
  if (w->node_index != node_index)
    fail("--srt-step=" + step + " runs on " + w->node + " (node " + std::to_string(w->node_index) +
             ") but this step is on " + node.name + " (node " + std::to_string(node_index) + ")",
         "launch it with srun -N1 -w " + w->node);
  for (const auto& [k, v] : w->env) plan_detail::set_env(out.set, k, v);
  out.unset = w->unset_env;
  out.worker = w;
  return out;
}

void bind_step(StepEnvironment& env, const NodeTopology& topo, const NodeGrant& grant, const Profile& profile) {
  if (!env.worker || topo.gpus.empty()) return;
  Process w = *env.worker;
  for (int g : w.gpus)
    if (g < 0 || g >= int(topo.gpus.size()))
      fail(w.name + " uses GPU " + std::to_string(g) + " but this node has " + std::to_string(topo.gpus.size()) +
               " GPUs (" + topo.partition_mode + " mode)",
           "check resources.gpus_per_node against the node (srt-helper topology)");
  const WorkerBinding b = bind_worker(topo, w.gpus, grant.cpus);
  apply_binding(w, b, grant.host_ip, profile, env.job_id);
  for (const auto& [k, v] : w.env) plan_detail::set_env(env.set, k, v);
  const GpuVisibility vis = gpu_visibility_env(grant.visible_devices, w.gpus, profile.visible_devices_env, grant.node_gpus);
  for (const auto& [k, v] : vis.variables()) plan_detail::set_env(env.set, k, v);
  env.cpus = b.cpus;
}

std::string encode_snapshot(const Snapshot& s) {
  Json j = {{"v", 1}, {"recipe_path", s.recipe_path}, {"recipe", s.recipe_text}, {"profile_digest", s.profile_digest}};
  if (!s.variant_selector.empty()) j["variant"] = {{"selector", s.variant_selector}, {"name", s.variant_name}};
  const std::string raw = j.dump();
  std::string out(BASE64_ENCODE_RAW_LENGTH(raw.size()), '\0');
  base64_encode_raw(out.data(), raw.size(), reinterpret_cast<const std::uint8_t*>(raw.data()));
  if (out.size() > kMaxSnapshotBytes)
    fail("the recipe is too large to carry into the job (" + std::to_string(raw.size()) + " bytes)",
         "keep recipes under " + std::to_string(kMaxSnapshotBytes * 3 / 4 / 1024) + " KiB");
  return out;
}

Snapshot decode_snapshot(const std::string& encoded) {
  const auto bad = [] { fail("the job's recipe snapshot is damaged", "resubmit the job with --srt-recipe"); };
  if (encoded.empty() || encoded.size() > kMaxSnapshotBytes || encoded.size() % 4 != 0) bad();
  // Nettle's decoder (no libcrypto in slurmstepd: issue 25) refuses any byte outside the
  // alphabet and checks the padding in base64_decode_final.
  std::string raw(BASE64_DECODE_LENGTH(encoded.size()), '\0');
  base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  std::size_t len = raw.size();
  if (base64_decode_update(&ctx, &len, reinterpret_cast<std::uint8_t*>(raw.data()), encoded.size(), encoded.data()) != 1 ||
      base64_decode_final(&ctx) != 1)
    bad();
  raw.resize(len);
  Snapshot s;
  try {
    const Json j = Json::parse(raw);
    if (!j.is_object() || j.value("v", 0) != 1 || !j.contains("recipe") || !j["recipe"].is_string()) bad();
    s.recipe_path = j.value("recipe_path", std::string());
    s.recipe_text = j["recipe"].get<std::string>();
    s.profile_digest = j.value("profile_digest", std::string());
    if (j.contains("variant")) {
      const Json& v = j["variant"];
      if (!v.is_object() || !v.value("selector", Json()).is_string() || !v.value("name", Json()).is_string()) bad();
      s.variant_selector = v["selector"].get<std::string>();
      s.variant_name = v["name"].get<std::string>();
    }
  } catch (const Json::exception&) {
    bad();
  }
  return s;
}

}  // namespace srt

// Recipes built in code for the plan tests, shaped like the shipped DSV4 recipes.
#pragma once
#include "srt/plan.hpp"

namespace test_recipes {

inline srt::Recipe atom_pd(int prefill_nodes, int decode_nodes, int prefill_workers, int decode_workers,
                           int gpus_per_prefill, int gpus_per_decode, bool dp_attention) {
  srt::Recipe r;
  r.source.file = "test.yaml";
  r.name = "test";
  r.model.path = "hf:deepseek-ai/DeepSeek-V4-Pro";
  r.resources.gpu_type = "mi355x";
  r.resources.gpus_per_node = 8;
  r.resources.prefill_nodes = prefill_nodes;
  r.resources.decode_nodes = decode_nodes;
  r.resources.decode_nodes_given = true;
  r.resources.prefill_workers = prefill_workers;
  r.resources.decode_workers = decode_workers;
  r.resources.gpus_per_prefill = gpus_per_prefill;
  r.resources.gpus_per_decode = gpus_per_decode;
  r.backend.type = "atom";
  r.backend.connector = "mooncake";
  r.backend.mooncake_protocol = "tcp";
  srt::Json cfg = {{"kv_cache_dtype", "fp8"}, {"gpu-memory-utilization", 0.85}, {"max-num-seqs", 256},
                   {"block-size", 16}, {"no-enable_prefix_caching", true}, {"trust-remote-code", true}};
  if (dp_attention) {
    cfg["enable-dp-attention"] = true;
    cfg["enable-tbo"] = true;
  }
  r.backend.prefill_config = cfg;
  cfg["max-num-seqs"] = 2048;
  r.backend.decode_config = cfg;
  r.backend.prefill_environment = {{"OMP_NUM_THREADS", "1"}, {"NODE_TAG", "{node}-{node_id}"}};
  r.backend.decode_environment = r.backend.prefill_environment;
  r.frontend.type = "atomesh";
  r.frontend.enable_multiple_frontends = false;
  r.benchmark.type = "custom";
  r.benchmark.command = "echo bench";
  r.benchmark.env = {{"HF_HOME", "/hf_hub_cache"}};
  return r;
}

// Every kind of port a process binds with its ports, for tests that walk them all.
inline std::vector<std::pair<std::string, std::vector<int>>> all_ports(const srt::Process& p) {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  p.ports.each([&out](const char* kind, const std::vector<int>& ports) { out.emplace_back(kind, ports); });
  return out;
}

inline srt::Recipe dsv4_2p1d() { return atom_pd(2, 1, 2, 1, 8, 8, true); }
inline srt::Recipe dsv4_1p1d() { return atom_pd(1, 1, 1, 1, 8, 8, false); }

inline std::vector<std::string> node_names(int n, const char* prefix = "mi355x-") {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i) out.push_back(prefix + std::string(i < 10 ? "0" : "") + std::to_string(i));
  return out;
}

inline srt::PlanInputs inputs(int n, std::uint64_t job = 4242) {
  srt::PlanInputs in;
  in.nodes = node_names(n);
  in.job_id = job;
  in.recipe_path = "recipes/test.yaml";
  for (int i = 0; i < n; ++i) in.addresses[in.nodes[std::size_t(i)]] = "10.0.0." + std::to_string(i + 1);
  return in;
}

}  // namespace test_recipes

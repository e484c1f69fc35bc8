#include "srt/submit.hpp"

#include <regex>

#include "srt/error.hpp"

namespace srt {

namespace {

void add_directive(std::vector<std::string>& out, const std::string& key, const std::string& value) {
  // srtctl: `--key=value`, or `--key` when the value is empty.
  out.push_back(value.empty() ? "--" + key : "--" + key + "=" + value);
}

}  // namespace

std::vector<std::string> sbatch_arguments(const Recipe& r, const Profile& p, const SubmitOptions& o) {
  std::vector<std::string> a;
  const int nodes = node_demand(r, p);
  const int gpn = r.resources.gpus_per_node > 0 ? r.resources.gpus_per_node : p.gpus_per_node;
  add_directive(a, "job-name", o.job_name_override.empty() ? r.name : o.job_name_override);
  add_directive(a, "nodes", std::to_string(nodes));
  add_directive(a, "ntasks", std::to_string(nodes));
  add_directive(a, "ntasks-per-node", "1");
  if (p.gpu_sbatch_directive == "gres") add_directive(a, "gres", "gpu:" + std::to_string(gpn));
  else if (p.gpu_sbatch_directive == "gpus-per-node") add_directive(a, "gpus-per-node", std::to_string(gpn));
  if (p.use_segment_sbatch_directive) add_directive(a, "segment", std::to_string(nodes));
  // node_sharing: exclusive means every srt job uses the same ports on a node, so the job must
  // have its nodes to itself whatever srtctl's use_exclusive_sbatch_directive says (the launcher
  // refuses an allocation that is not exclusive; docs/design.md "Ports").
  if (p.use_exclusive_sbatch_directive || p.node_sharing == NodeSharing::exclusive) add_directive(a, "exclusive", "");
  const std::string account = !r.slurm.account.empty() ? r.slurm.account : p.default_account;
  const std::string partition = !r.slurm.partition.empty() ? r.slurm.partition : p.default_partition;
  const std::string time = !r.slurm.time_limit.empty() ? r.slurm.time_limit : p.default_time_limit;
  if (!account.empty()) add_directive(a, "account", account);
  if (!time.empty()) add_directive(a, "time", time);
  if (!partition.empty()) add_directive(a, "partition", partition);
  for (const auto& [k, v] : p.default_sbatch_directives) add_directive(a, k, v);
  for (const auto& [k, v] : r.sbatch_directives) add_directive(a, k, v);
  // The launcher stops every step, archives logs and writes status.json on this signal, two
  // minutes before Slurm would kill the job at its time limit.
  add_directive(a, "signal", "B:USR1@120");
  if (!o.output.empty()) add_directive(a, "output", o.output);
  add_directive(a, "srt-recipe", o.recipe_path);
  a.insert(a.end(), o.extra.begin(), o.extra.end());
  a.push_back(o.job_script);
  a.insert(a.end(), o.script_args.begin(), o.script_args.end());
  return a;
}

int concurrency_of(const std::string& file_name) {
  static const std::regex re("-c([0-9]+)\\.json$");
  std::smatch m;
  if (!std::regex_search(file_name, m, re) || m[1].length() > 9) return -1;
  return std::stoi(m[1].str());
}

std::string inferencex_name(const std::string& base, std::uint64_t job_id, int concurrency,
                            const report::GpuCount& g, bool disaggregated) {
  std::string out = base + "_srt-" + std::to_string(job_id) + "_conc" + std::to_string(concurrency) +
                    "_gpus_" + std::to_string(g.total);
  if (disaggregated) out += "_ctx_" + std::to_string(g.prefill) + "_gen_" + std::to_string(g.decode);
  return out + ".json";
}

}  // namespace srt

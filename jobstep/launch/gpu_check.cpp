#include "gpu_check.hpp"

#include <algorithm>
#include <set>

namespace srt::launch {
namespace {

// "node1:0,1,2" for every node where a worker has GPUs, in the Plan's node order.
std::vector<std::pair<std::string, std::string>> worker_gpus(const Job& job) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& n : job.plan.nodes) {
    std::set<int> gpus;
    for (const Process* p : job.plan.on_node(n.index))
      gpus.insert(p->gpus.begin(), p->gpus.end());
    std::string list;
    for (int g : gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
    if (!list.empty()) out.emplace_back(n.name, list);
  }
  return out;
}

}  // namespace

StepCommand gpu_check_command(const Job& job) {
  const auto specs = worker_gpus(job);
  StepCommand c;
  if (specs.empty()) return c;
  std::string nodelist;
  for (const auto& s : specs) nodelist += (nodelist.empty() ? "" : ",") + s.first;
  const std::string n = std::to_string(specs.size());
  // On the host, not in the image: ROCm SMI and /proc there see every process of the node.
  c.srun = {"srun", "--jobid=" + std::to_string(job.plan.job_id), "--overlap", "--nodes=" + n, "--ntasks=" + n,
            "--ntasks-per-node=1", "--nodelist=" + nodelist, "--job-name=gpu_check", "--input=none"};
  c.command = {job.srt_helper, "gpu-check", "--job-id=" + std::to_string(job.plan.job_id),
               "--idle-vram-mib=" + std::to_string(job.profile.gpu_idle_vram_mib)};
  if (job.profile.container_runtime == ContainerRuntime::pyxis) {
    // Our named containers of other images go from every node checked (gpu_clean.hpp).
    std::set<std::string> names;
    for (const auto& p : job.plan.processes)
      if (!p.container.on_host && !p.container.image.empty()) names.insert(pyxis_container_name(p.container.image));
    c.command.push_back("--pyxis-clean");
    for (const auto& name : names) c.command.push_back("--pyxis-keep=" + name);
  }
  for (const auto& [node, gpus] : specs) c.command.push_back(node + ":" + gpus);
  return c;
}

GpuCheckReport read_gpu_check(const std::string& output, const Job& job) {
  GpuCheckReport r;
  std::set<std::string> answered, busy_nodes;
  std::size_t from = 0;
  while (from < output.size()) {
    const std::size_t end = std::min(output.find('\n', from), output.size());
    const std::string line = output.substr(from, end - from);
    from = end + 1;
    const std::string prefix = "gpu-check: node ";
    const std::size_t at = line.find(prefix);
    if (at == std::string::npos) continue;
    const std::string rest = line.substr(at + prefix.size());
    const std::size_t colon = rest.find(": ");
    if (colon == std::string::npos) continue;
    const std::string node = rest.substr(0, colon), what = rest.substr(colon + 2);
    r.lines.push_back(line.substr(at));
    const bool verdict = what.rfind("clean: ", 0) == 0 || what.rfind("busy: ", 0) == 0 ||
                         what.rfind("not checked: ", 0) == 0 || what.rfind("error: ", 0) == 0;
    if (!verdict) continue;  // "ending:", "removed:", "kept:" lines come before a verdict
    answered.insert(node);
    if (what.rfind("busy: ", 0) == 0) {
      r.busy.push_back(what.substr(6));
      busy_nodes.insert(node);
    }
  }
  for (const auto& [node, gpus] : worker_gpus(job)) {
    if (busy_nodes.count(node)) r.nodes.push_back(node);
    if (!answered.count(node)) r.silent.push_back(node);
  }
  return r;
}

}  // namespace srt::launch

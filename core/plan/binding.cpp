#include <string>

#include "processes.hpp"
#include "srt/plan.hpp"
#include "srt/join.hpp"

namespace srt {


void apply_binding(Process& w, const WorkerBinding& b, const std::string& host_ip, const Profile&,
                   std::uint64_t job_id) {
  using plan_detail::set_env;
  if (!host_ip.empty()) set_env(w.env, "ATOM_HOST_IP", host_ip);
  if (!b.numa_nodes.empty()) {
    set_env(w.env, "ATOM_NUMA_BIND", "1");
    set_env(w.env, "ATOM_NUMA_NODE", join(b.numa_nodes));
  }
  if (!b.cpus.empty()) set_env(w.env, "SRT_WORKER_CPUS", b.cpus);
  if (!b.mooncake_topology.empty()) {
    // Mooncake silently ignores a topology file it cannot read, so the file must exist inside the
    // container: srt-exec writes SRT_MOONCAKE_TOPOLOGY to this path before it execs the engine.
    // Named for the job and the step: /tmp may be the node's, shared by every job on it.
    set_env(w.env, "MC_CUSTOM_TOPO_JSON",
            "/tmp/srt-mooncake-" + std::to_string(job_id) + "-" + w.step_name + ".json");
    set_env(w.env, "SRT_MOONCAKE_TOPOLOGY", b.mooncake_topology);
  }
  // RDMA: name the paired NICs explicitly; ATOM's auto-pick guesses rdma<N>/ionic_<N> from the GPU
  // index and never picks bnxt_re or mlx5 devices.
  std::vector<std::string> nics;
  for (const auto& d : b.ib_devices)
    if (!d.empty()) nics.push_back(d);
  for (std::size_t i = 0; i + 1 < w.argv.size(); ++i) {
    if (w.argv[i] != "--kv-transfer-config") continue;
    Json kv = Json::parse(w.argv[i + 1]);
    const std::string protocol = kv.value("protocol", std::string("rdma"));
    if (protocol != "rdma" || nics.empty()) continue;
    kv["ib_device"] = join(nics);
    w.argv[i + 1] = kv.dump();
    // The same list through ATOM's fallback variable: the launcher renders argv on the head node,
    // which cannot know this node's NICs, while this environment is set on the node itself.
    set_env(w.env, "ATOM_MOONCAKE_IB_DEVICE", join(nics));
  }
}

}  // namespace srt

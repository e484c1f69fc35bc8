// A node's GPUs, their paired NICs and CPU locality (reference/mi355x-topology.md), and the
// per-worker binding derived from it (DESIGN "How ATOM really runs").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt {

struct Nic {
  std::string rdma;    // RDMA device: ionic_4, bnxt_re0, mlx5_0
  std::string netdev;  // benic1p1
  std::string bus_id;  // 0000:08:00.0
  int numa = -1;
};

struct Gpu {
  int index = 0;              // position in PCI bus order = Slurm's GRES index on a healthy node
  std::string bus_id;         // 0000:05:00.0
  unsigned device_id = 0;     // 0x75a3 MI355X
  int numa = -1;
  std::string cpuset;         // list form "0-63"
  std::optional<Nic> nic;     // the NIC behind the same PCIe switch, if any
  std::string unique_id;      // ROCm SMI unique id (hex), when known
};

struct NodeTopology {
  std::vector<Gpu> gpus;              // PCI bus order
  std::vector<Nic> frontend_nics;     // RDMA-capable NICs paired with no GPU, and plain NICs
  std::string partition_mode = "SPX"; // SPX, DPX, QPX, CPX (from KFD/sysfs); "unknown" if unreadable
  std::string source;                 // "hwloc:<xml path>" or "hwloc:live" (+ "+rsmi")
};

// What one worker (one engine process) gets on its node.
struct WorkerBinding {
  std::vector<int> gpus;                 // node GPU indices, in visible order
  std::vector<std::string> ib_devices;   // paired RDMA devices, one per visible GPU ("" if none)
  std::vector<int> numa_nodes;           // NUMA node of each visible GPU
  std::string cpus;                      // list form; union of the GPUs' cpusets within the grant
  bool cpus_fell_back = false;           // the intersection was empty: the whole grant is used
  std::string mooncake_topology;         // MC_CUSTOM_TOPO_JSON content, keyed "hip:<ordinal>"
};

// Pure: computed from a topology, the worker's GPU indices and what Slurm granted ("" = all).
WorkerBinding bind_worker(const NodeTopology& topo, const std::vector<int>& gpus,
                          const std::string& granted_cpus);

Json topology_to_json(const NodeTopology& topo);

}  // namespace srt

// A node's GPUs, their paired NICs and CPU locality (hwloc, ROCm SMI), and the per-worker
// binding derived from it (docs/design.md "How ATOM runs").
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
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
  bool nic_shared = false;    // the switch has fewer NICs than GPUs: this NIC also serves another GPU
};

struct NodeTopology {
  std::vector<Gpu> gpus;              // PCI bus order
  std::vector<Nic> frontend_nics;     // RDMA-capable NICs paired with no GPU, and plain NICs
  std::string partition_mode = "SPX"; // SPX, DPX, QPX, CPX (from KFD/sysfs); "unknown" if unreadable
  std::string source;                 // "hwloc:<xml path>" or "hwloc:live" (+ "+rsmi")
  std::vector<std::string> notes;     // what a person should know: no ROCm SMI, cache refused, ...
};

// What one worker (one engine process) gets on its node.
// How an ATOM image's Mooncake connector picks a rank's NIC when none is configured, as preflight
// read it from the image's code (core/preflight/probe.py rdma_nic_behaviour; docs/design.md
// "ATOM's NIC choice"): the name families it builds from an index, tried in order (rdma, then
// ionic_), and whether that index is the GPU's entry in the visibility variable (physical) or the
// rank's device ordinal (visible); or every NIC (it hands Mooncake "" and Mooncake opens them all);
// or unknown.
// The default is the pick every ATOM since 2026-07 has (ROCm/ATOM #1475 on): rdma<N>, else
// ionic_<N>, N the GPU's visibility entry (srt/rdma_nic.hpp newest_atom_nic_pick).
struct AtomNicPick {
  enum class Kind { own_nic, every_nic, unknown } kind = Kind::own_nic;
  std::vector<std::string> families = {"rdma", "ionic_"};  // own_nic, in the order tried
  bool physical = true;                                    // own_nic: the index is the visibility entry
};
struct WorkerBinding {
  std::vector<int> gpus;                 // node GPU indices, in visible order
  std::vector<std::string> ib_devices;   // paired RDMA devices, one per visible GPU ("" if none)
  std::vector<int> numa_nodes;           // NUMA node of each visible GPU
  std::string cpus;                      // list form; union of the GPUs' cpusets within the grant
  bool cpus_fell_back = false;           // the intersection was empty: the whole grant is used
  std::string mooncake_topology;         // MC_CUSTOM_TOPO_JSON content, keyed "hip:<ordinal>"
  // What the engine sees of each visible GPU: the number the node writes for it in
  // ROCR_VISIBLE_DEVICES (the GPU's node index without ConstrainDevices, Slurm's local index
  // with it; bind_step sets it from the visibility rule), and every RDMA device of the node.
  std::vector<int> visible_entries;
  std::set<std::string> rdma_devices;
  std::map<std::string, int> roce_gid_index;  // RoCE v2 IPv4 GID index per device, when the node read it
  AtomNicPick atom_nic_pick;                   // what the image's ATOM picks with no NIC configured
};

// Pure: computed from a topology, the worker's GPU indices and what Slurm granted ("" = all).
// Refuses (srt::Error) an unknown GPU index, a GPU named twice, and a node in a compute
// partition mode (DPX/QPX/CPX): ROCm SMI 5.2.3 cannot say which logical GPU is where.
//
// Mooncake JSON: "hip:<ordinal>" -> [[preferred], [available]]. Mooncake's own discovery
// (topology.cpp) prefers the nearest HCAs on the GPU's NUMA node and keeps every other HCA as a
// fallback; here preferred = the GPU's paired NIC (the PCIe switch is nearer than anything hwloc
// distances say), available = the other backend NICs (paired with some GPU) on the same NUMA
// node, or all other backend NICs when that NUMA node has no other. Frontend NICs are never
// listed: they are usually another network and a KV transfer over them fails or crawls.
// "cpu:<numa>" keys for the NUMA nodes of the worker's GPUs are added because Mooncake looks up
// host buffers by that key and the custom file replaces its discovery entirely.
WorkerBinding bind_worker(const NodeTopology& topo, const std::vector<int>& gpus,
                          const std::string& granted_cpus);

// What each rank of a worker does with its NICs over Mooncake RDMA, from its binding (Mooncake
// mooncake-transfer-engine/src/transfer_engine.cpp and topology.cpp; ATOM's
// mooncake_connector.py). With a topology file (atom_picks false) Mooncake opens one RDMA
// context per NIC named anywhere in it and registers every buffer on every context, so each rank
// opens all of them; its transfers then go over its location's preferred NIC (the GPU's
// switch-mate). With ATOM picking (atom_picks: no list, no file) each rank opens only the NIC
// ATOM names from its visibility entry (atom_nic_guesses, srt/rdma_nic.hpp).
struct RankNics {
  int rank = 0;                        // visible ordinal: the DP rank (DP attention) or TP rank
  int gpu = -1;                        // node GPU index
  std::string location;                // "hip:<rank>", Mooncake's name for the rank's memory
  std::vector<std::string> preferred;  // the NICs its transfers go over
  std::vector<std::string> opens;      // every NIC it opens and registers its KV memory on
};
std::vector<RankNics> rank_nics(const WorkerBinding& binding, bool atom_picks = false);

Json topology_to_json(const NodeTopology& topo);

// ---- GPU visibility --------------------------------------------------------------------------
//
// The rule: Slurm's values (whichever variable it set) are indices in the space ROCr enumerates
// inside the step: global GRES indices without ConstrainDevices, local 0..n-1 of the allocated
// devices with it (the devices cgroup hides the others, so ROCr renumbers). So
//   ROCR_VISIBLE_DEVICES = the worker's GPUs written in that same space, in the worker's order;
//   HIP_VISIBLE_DEVICES = CUDA_VISIBLE_DEVICES = GPU_DEVICE_ORDINAL = 0..k-1.
// ROCr is applied first and reduces what HIP sees; HIP also honours CUDA_VISIBLE_DEVICES and
// the OpenCL layer GPU_DEVICE_ORDINAL, so leaving any of Slurm's values in place would filter a
// second time with stale indices. Restricting at ROCr (not only HIP) also keeps ROCr from
// opening the other workers' GPUs. ATOM's NIC auto-pick reads the ROCR_VISIBLE_DEVICES entry
// written here (WorkerBinding::visible_entries), so the ATOM adapter predicts it from that value.
// Mapping a worker GPU (node index = PCI order) into Slurm's space needs the node indices of the
// granted devices (SLURM_STEP_GPUS or SLURM_JOB_GPUS): position p of the worker GPU there gives
// granted_visible[p]. Without them Slurm's values are taken as node indices (no ConstrainDevices).
// A worker GPU outside the grant is refused: the plugin never widens an allocation.
struct GpuVisibility {
  std::string rocr_visible_devices;
  std::string hip_visible_devices;
  std::string cuda_visible_devices;
  std::string gpu_device_ordinal;
  // The four variables as (name, value), in the order they should be set.
  std::vector<std::pair<std::string, std::string>> variables() const;
};

// One of Slurm's GPU lists ("0,2,3"; "" is none) as indices; `name` says in the error which
// variable held a list that is not one (UUIDs carry no position, so they are refused).
std::vector<int> parse_gpu_indices(const std::string& value, const std::string& name);

// granted_visible: the value Slurm put in `visible_devices_env_name` ("" = no GPU GRES: every
// GPU of the node is visible). granted_node_gpus: SLURM_STEP_GPUS/SLURM_JOB_GPUS ("" = unknown).
GpuVisibility gpu_visibility_env(const std::string& granted_visible,
                                 const std::vector<int>& worker_gpus,
                                 const std::string& visible_devices_env_name,
                                 const std::string& granted_node_gpus = "");

// ---- Loading -----------------------------------------------------------------------------------

struct TopologyOptions {
  std::string xml_path;       // "" = live discovery (hwloc itself still honours HWLOC_XMLFILE)
  std::string cache_dir;      // "" = no cache; only live discoveries are cached
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  std::string sysfs_root = "/sys";  // KFD partition detection; "" = skip ("unknown")
  bool use_rsmi = false;            // also ask ROCm SMI (dlopen) for unique ids and NUMA
};

NodeTopology load_topology(const TopologyOptions& opts);

// An hwloc XML file -> inventory, without ROCm SMI or sysfs.
NodeTopology read_topology_xml(const std::string& path);

// ---- Per-node cache: the derived inventory, keyed by boot id ------------------------------------
//
// The cache holds what hwloc's walk derived (GPUs, their NICs, NUMA nodes and cpusets) as a small
// versioned JSON, not hwloc's XML: a slurmstepd reads it back without hwloc parsing a whole
// topology (docs/performance.md). ROCm SMI and the partition mode are asked again on every load.

std::string encode_topology_cache(const NodeTopology& topo);
// srt::Error naming `source` for anything this version did not write (another format or
// version, a field of the wrong type or out of range, GPU indices not 0..n-1).
NodeTopology decode_topology_cache(std::string_view bytes, const std::string& source);

std::string read_boot_id(const std::string& path);
// DIR/topology-<boot id>.json: where this boot's cache is (srt::Error for an id that is no UUID).
std::string topology_cache_path(const std::string& dir, const std::string& boot_id);
// The cache directory must be owned by root or the current user and not writable by others
// unless sticky; anything else is refused with srt::Error (another user could plant a topology).
// nullopt = no cache file for this boot.
std::optional<std::string> read_topology_cache(const std::string& dir, const std::string& boot_id);
// Temp file + rename in the same directory, O_NOFOLLOW|O_EXCL: a reader sees the old file or
// the whole new one, and a planted symlink is never followed. Creates `dir` (0755) if missing.
void write_topology_cache(const std::string& dir, const std::string& boot_id, const std::string& bytes);
// Removes the cache files of other boots (`topology-*.json` but this boot's); how many.
std::size_t remove_stale_topology_caches(const std::string& dir, const std::string& boot_id);

// What root runs at boot and at install (`srt-helper topology --refresh-cache`): a live discovery
// written to `opts.cache_dir` for this boot, whatever a cache held, and the other boots' files
// removed. slurmstepd reads the cache as the job's user, who cannot write a root-owned directory:
// without this step every srt step of every job discovers the topology again.
struct CacheRefresh {
  NodeTopology topology;
  std::string path;         // the file written
  std::size_t removed = 0;  // other boots' files
};
CacheRefresh refresh_topology_cache(const TopologyOptions& opts);

// ---- ROCm SMI (dlopen at run time, only when asked) ----------------------------------------------

struct RsmiGpu {
  std::string bus_id;     // from rsmi_dev_pci_id_get, partition bits masked off
  std::string unique_id;  // hex, as ROCr's "GPU-<hex>"
  std::string name;
  int numa = -1;
};

struct RsmiInventory {
  bool available = false;   // library loaded and rsmi_init succeeded
  std::string message;      // why not, or a summary
  std::vector<RsmiGpu> gpus;
};

// library_names: dlopen candidates in order ({} = librocm_smi64.so.1/.7/.6/.5, then /opt/rocm).
RsmiInventory query_rsmi(const std::vector<std::string>& library_names = {});
// What the clean-GPU check (srt-helper gpu-check) asks: each GPU's VRAM in use and the
// processes KFD lists with the GPUs they have queues on (rsmi_compute_process_info_get,
// rsmi_compute_process_gpus_get, rsmi_compute_process_info_by_pid_get; rocm_smi 5.2.3 reads
// /sys/class/kfd/kfd/proc/<pid>/{pasid, queues/*/gpuid, vram_<gpu_id>}).
struct RsmiGpuMemory {
  std::string bus_id;
  std::uint64_t used = 0, total = 0;  // bytes (rsmi_dev_memory_usage_get / _total_get, VRAM)
  bool known = false;
};
struct RsmiProcess {
  int pid = 0;
  std::vector<std::string> bus_ids;
  std::uint64_t vram = 0;  // bytes, summed over its GPUs
  // rocm_smi 5.2.3 sums vram_<gpu_id> over every GPU of the node and fails when one is missing,
  // which it is for a process that opened only some GPUs (ROCR_VISIBLE_DEVICES): then unknown.
  bool vram_known = false;
};
struct RsmiUsage {
  bool available = false;
  std::string message;
  std::vector<RsmiGpuMemory> gpus;      // rsmi index order
  std::vector<RsmiProcess> processes;
};
RsmiUsage query_rsmi_usage(const std::vector<std::string>& library_names = {});

// Joins on PCI bus id, never on index; what does not join becomes a note.
void merge_rsmi(NodeTopology& topo, const RsmiInventory& rsmi);

// KFD GPU nodes (<sysfs_root>/class/kfd/kfd/topology/nodes/*/properties with simd_count > 0)
// per PCI GPU: 1 SPX, 2 DPX, 4 QPX, 8 CPX; "unknown" when unreadable or not a whole multiple.
std::string detect_partition_mode(const std::string& sysfs_root, std::size_t pci_gpus);

// ---- Building blocks (pure; exposed for tests) -----------------------------------------------

// One ancestor of a PCI function, innermost first, as far as the machine root.
struct PciAncestor {
  std::uint64_t id = 0;      // unique within one topology (hwloc gp_index)
  int bridge_depth = -1;     // hwloc bridge depth; -1 for non-bridges
  bool pci_bridge = false;   // PCI-to-PCI bridge; host bridges and CPU-side objects are not
};

struct PciEndpoint {
  std::string bus_id;
  std::vector<PciAncestor> path;
};

// For every GPU, the index in `nics` of its NIC, or -1; `shared[i]` says GPU i shares it.
// Deepest common PCI-to-PCI bridge wins; when several GPUs and NICs meet at the same bridge,
// both sides are sorted by bus id and zipped; a GPU left over shares the nearest NIC.
struct NicPairing {
  std::vector<int> nic_of_gpu;
  std::vector<bool> shared;
};
NicPairing pair_nics(const std::vector<PciEndpoint>& gpus, const std::vector<PciEndpoint>& nics);

// CPU list strings ("0-3,8"): "" means "everything" only where a function says so.
std::string cpulist_union(const std::string& a, const std::string& b);
std::string cpulist_intersection(const std::string& a, const std::string& b);
// The CPU numbers in a list string, ascending (for sched_setaffinity).
std::vector<int> cpulist_members(const std::string& list);

}  // namespace srt

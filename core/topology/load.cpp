// load_topology: cache or live hwloc (or a fixture), then partition mode, then ROCm SMI.
#include <dirent.h>

#include <fstream>
#include <memory>
#include <string>

#include "hwloc_handle.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"

namespace srt {
namespace {

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

// Partition nodes are platform devices (amdgpu_xcp.N), invisible to hwloc and to rocm_smi
// 5.2.3, but each gets its own KFD topology node: counting those is the one reliable signal.
bool kfd_gpu_node(const std::string& properties_path) {
  std::ifstream in(properties_path);
  std::string key;
  long long value = 0;
  while (in >> key >> value)
    if (key == "simd_count") return value > 0;
  return false;
}

// This machine through hwloc, without a cache.
NodeTopology discover_live() {
  NodeTopology t = topology_detail::inventory(topology_detail::HwlocTopology::live());
  t.source = "hwloc:live";
  return t;
}

NodeTopology discover_with_cache(const TopologyOptions& opts) {
  std::string boot_id;
  try {
    boot_id = read_boot_id(opts.boot_id_path);
  } catch (const Error& e) {
    NodeTopology t = discover_live();
    t.notes.push_back(std::string("topology cache not used: ") + e.what());
    return t;
  }
  std::string cache_note;
  try {
    if (auto bytes = read_topology_cache(opts.cache_dir, boot_id))
      return decode_topology_cache(*bytes, "cache:" + topology_cache_path(opts.cache_dir, boot_id));
  } catch (const Error& e) {
    // A refused or corrupt cache must not stop the job: rediscover and say so.
    cache_note = std::string("topology cache ignored: ") + e.what();
  }
  NodeTopology t = discover_live();
  if (!cache_note.empty()) t.notes.push_back(cache_note);
  try {
    write_topology_cache(opts.cache_dir, boot_id, encode_topology_cache(t));
  } catch (const Error& e) {
    t.notes.push_back(std::string("topology cache not written: ") + e.what());
  }
  return t;
}

}  // namespace

std::string detect_partition_mode(const std::string& sysfs_root, std::size_t pci_gpus) {
  if (sysfs_root.empty() || pci_gpus == 0) return "unknown";
  const std::string nodes = sysfs_root + "/class/kfd/kfd/topology/nodes";
  std::unique_ptr<DIR, DirCloser> dir(::opendir(nodes.c_str()));
  if (!dir) return "unknown";
  std::size_t gpu_nodes = 0;
  while (const dirent* e = ::readdir(dir.get())) {
    std::string name = e->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (kfd_gpu_node(nodes + "/" + name + "/properties")) ++gpu_nodes;
  }
  if (gpu_nodes == 0 || gpu_nodes % pci_gpus != 0) return "unknown";
  switch (gpu_nodes / pci_gpus) {
    case 1: return "SPX";
    case 2: return "DPX";
    case 4: return "QPX";
    case 8: return "CPX";
    default: return "unknown";
  }
}

CacheRefresh refresh_topology_cache(const TopologyOptions& opts) {
  if (opts.cache_dir.empty()) fail("no topology cache directory to refresh", "set topology_cache_dir in the profile or pass --cache-dir");
  const std::string boot_id = read_boot_id(opts.boot_id_path);
  CacheRefresh r;
  r.topology = discover_live();
  write_topology_cache(opts.cache_dir, boot_id, encode_topology_cache(r.topology));
  r.path = topology_cache_path(opts.cache_dir, boot_id);
  r.removed = remove_stale_topology_caches(opts.cache_dir, boot_id);
  return r;
}

NodeTopology load_topology(const TopologyOptions& opts) {
  NodeTopology t;
  if (!opts.xml_path.empty()) {
    t = read_topology_xml(opts.xml_path);
  } else if (!opts.cache_dir.empty()) {
    t = discover_with_cache(opts);
  } else {
    t = discover_live();
  }
  t.partition_mode = detect_partition_mode(opts.sysfs_root, t.gpus.size());
  if (t.partition_mode != "SPX" && t.partition_mode != "unknown")
    t.notes.push_back("GPUs are in compute partition mode " + t.partition_mode +
                      "; workers are refused until the node is back in SPX");
  if (opts.use_rsmi) merge_rsmi(t, query_rsmi());
  return t;
}

}  // namespace srt

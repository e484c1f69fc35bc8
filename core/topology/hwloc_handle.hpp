// RAII owners for the hwloc C handles used by the topology area (internal to core/topology).
#pragma once
#include <hwloc.h>

#include <memory>
#include <string>

#include "srt/topology.hpp"

namespace srt::topology_detail {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};

using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

class HwlocTopology {
 public:
  // Each throws srt::Error with hwloc's errno text when the topology cannot be built.
  static HwlocTopology from_xml_file(const std::string& path);
  static HwlocTopology live();

  hwloc_topology_t get() const { return topo_.get(); }

 private:
  explicit HwlocTopology(hwloc_topology_t t) : topo_(t) {}
  std::unique_ptr<hwloc_topology, TopologyDeleter> topo_;
};

// GPUs, NICs and their pairing; `source` and the ROCm SMI / sysfs parts are the caller's.
NodeTopology inventory(const HwlocTopology& h);

Bitmap make_bitmap();
// "" for an empty or null set.
std::string to_list(hwloc_const_bitmap_t set);
// Throws srt::Error naming `what` when `list` is not a CPU list.
Bitmap parse_list(const std::string& list, const char* what);

}  // namespace srt::topology_detail

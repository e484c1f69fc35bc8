// hwloc -> NodeTopology: AMD GPUs, RDMA NICs, their NUMA nodes and cpusets, and the pairing.
// The walk follows hwloc 2.9's own (hwloc/topology-linux.c: DRM, net and infiniband OS devices).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "hwloc_handle.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"

namespace srt {
namespace topology_detail {

namespace {

hwloc_topology_t init_topology() {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) fail(std::string("hwloc_topology_init: ") + std::strerror(errno));
  return t;
}

// The default filter drops every I/O object; IMPORTANT keeps bridges, GPUs, NICs and their
// OpenFabrics/Network OS devices, but not the DRM osdevs (never rely on renderD*).
void load_with_io(hwloc_topology_t t, const std::string& what) {
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(t) != 0) {
    int e = errno;
    hwloc_topology_destroy(t);
    fail("cannot load the hwloc topology from " + what + ": " + std::strerror(e));
  }
}

}  // namespace

HwlocTopology HwlocTopology::from_xml_file(const std::string& path) {
  hwloc_topology_t t = init_topology();
  if (hwloc_topology_set_xml(t, path.c_str()) != 0) {
    int e = errno;
    hwloc_topology_destroy(t);
    fail("cannot read hwloc XML '" + path + "': " + std::strerror(e));
  }
  load_with_io(t, "'" + path + "'");
  return HwlocTopology(t);
}

HwlocTopology HwlocTopology::live() {
  hwloc_topology_t t = init_topology();
  load_with_io(t, "this machine");
  return HwlocTopology(t);
}

Bitmap make_bitmap() {
  Bitmap b(hwloc_bitmap_alloc());
  if (!b) fail("out of memory allocating an hwloc bitmap");
  return b;
}

std::string to_list(hwloc_const_bitmap_t set) {
  if (!set || hwloc_bitmap_iszero(set)) return "";
  char* s = nullptr;
  if (hwloc_bitmap_list_asprintf(&s, set) < 0 || !s) fail("out of memory formatting a cpuset");
  std::string out(s);
  std::free(s);
  return out;
}

Bitmap parse_list(const std::string& list, const char* what) {
  Bitmap b = make_bitmap();
  bool ok = list.find_first_not_of("0123456789,- \n") == std::string::npos;
  if (ok && hwloc_bitmap_list_sscanf(b.get(), list.c_str()) != 0) ok = false;
  // hwloc reads "5-" as "5 to infinity"; a Slurm grant never means that.
  if (ok && hwloc_bitmap_weight(b.get()) < 0) ok = false;
  if (!ok) fail(std::string(what) + " '" + list + "' is not a CPU list", "expected a form like 0-15,64-79");
  return b;
}

}  // namespace topology_detail

namespace {

using topology_detail::HwlocTopology;

bool is_amd_gpu(hwloc_obj_t o) {
  if (o->type != HWLOC_OBJ_PCI_DEVICE || o->attr->pcidev.vendor_id != 0x1002) return false;
  // The GPU's own USP/DSP bridges are vendor 0x1002 too (class 0x06); Pollara cards expose
  // class-0x1200 functions of vendor 0x1dd8: vendor AND class, never one of them.
  unsigned base = o->attr->pcidev.class_id >> 8;
  return base == 0x12 || base == 0x03;
}

hwloc_obj_t first_osdev(hwloc_obj_t pci, hwloc_obj_osdev_type_t type) {
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == type) return c;
  return nullptr;
}

std::string bus_id_of(hwloc_obj_t o) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                o->attr->pcidev.dev, o->attr->pcidev.func);
  return buf;
}

// The NUMA node whose locality equals the I/O object's CPU-side ancestor (Package in NPS1, the
// quadrant Group in NPS4); a locality spanning several nodes ("L3 as NUMA") takes the first.
int numa_of(hwloc_topology_t topo, hwloc_obj_t anc) {
  hwloc_location loc{};
  loc.type = HWLOC_LOCATION_TYPE_OBJECT;
  loc.location.object = anc;
  for (unsigned long flags : {0UL, static_cast<unsigned long>(HWLOC_LOCAL_NUMANODE_FLAG_SMALLER_LOCALITY |
                                                               HWLOC_LOCAL_NUMANODE_FLAG_LARGER_LOCALITY)}) {
    hwloc_obj_t nodes[64];
    unsigned n = 64;
    if (hwloc_get_local_numanode_objs(topo, &loc, &n, nodes, flags) == 0 && n > 0) {
      unsigned best = nodes[0]->os_index;
      for (unsigned i = 1; i < n && i < 64; ++i) best = std::min(best, nodes[i]->os_index);
      return static_cast<int>(best);
    }
  }
  return -1;
}

// hwloc_get_common_ancestor_obj compares depths and crashes on I/O objects that sit at
// different bridge depths (Thor2: GPU 5 bridges deep, NIC 3): the path is walked by hand.
PciEndpoint endpoint_of(hwloc_obj_t o) {
  PciEndpoint e;
  e.bus_id = bus_id_of(o);
  for (hwloc_obj_t p = o->parent; p; p = p->parent) {
    PciAncestor a;
    a.id = p->gp_index;
    if (p->type == HWLOC_OBJ_BRIDGE) {
      a.bridge_depth = static_cast<int>(p->attr->bridge.depth);
      a.pci_bridge = p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
    }
    e.path.push_back(a);
  }
  return e;
}

struct Found {
  hwloc_obj_t obj;
  std::string bus_id;
};

bool by_bus(const Found& a, const Found& b) { return a.bus_id < b.bus_id; }

NodeTopology inventory_of(const HwlocTopology& h) {
  hwloc_topology_t topo = h.get();
  std::vector<Found> gpus, nics;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_pcidev(topo, o)) != nullptr;) {
    if (is_amd_gpu(o)) {
      gpus.push_back({o, bus_id_of(o)});
    } else if (first_osdev(o, HWLOC_OBJ_OSDEV_OPENFABRICS) || first_osdev(o, HWLOC_OBJ_OSDEV_NETWORK)) {
      nics.push_back({o, bus_id_of(o)});
    }
  }
  std::sort(gpus.begin(), gpus.end(), by_bus);
  std::sort(nics.begin(), nics.end(), by_bus);

  std::vector<PciEndpoint> gpu_eps, rdma_eps;
  std::vector<std::size_t> rdma_to_nic;  // pairing only considers functions with an RDMA device
  for (const auto& g : gpus) gpu_eps.push_back(endpoint_of(g.obj));
  for (std::size_t i = 0; i < nics.size(); ++i) {
    if (!first_osdev(nics[i].obj, HWLOC_OBJ_OSDEV_OPENFABRICS)) continue;
    rdma_eps.push_back(endpoint_of(nics[i].obj));
    rdma_to_nic.push_back(i);
  }
  NicPairing pairing = pair_nics(gpu_eps, rdma_eps);

  std::vector<Nic> nic_values;
  for (const auto& n : nics) {
    Nic v;
    if (hwloc_obj_t ib = first_osdev(n.obj, HWLOC_OBJ_OSDEV_OPENFABRICS)) v.rdma = ib->name ? ib->name : "";
    if (hwloc_obj_t net = first_osdev(n.obj, HWLOC_OBJ_OSDEV_NETWORK)) v.netdev = net->name ? net->name : "";
    v.bus_id = n.bus_id;
    v.numa = numa_of(topo, hwloc_get_non_io_ancestor_obj(topo, n.obj));
    nic_values.push_back(std::move(v));
  }

  NodeTopology out;
  std::vector<bool> paired(nics.size(), false);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    Gpu g;
    g.index = static_cast<int>(i);
    g.bus_id = gpus[i].bus_id;
    g.device_id = gpus[i].obj->attr->pcidev.device_id;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, gpus[i].obj);
    g.cpuset = topology_detail::to_list(anc ? anc->cpuset : nullptr);
    g.numa = anc ? numa_of(topo, anc) : -1;
    if (int k = pairing.nic_of_gpu[i]; k >= 0) {
      std::size_t nic_index = rdma_to_nic[static_cast<std::size_t>(k)];
      g.nic = nic_values[nic_index];
      g.nic_shared = pairing.shared[i];
      paired[nic_index] = true;
    }
    out.gpus.push_back(std::move(g));
  }
  for (std::size_t i = 0; i < nics.size(); ++i)
    if (!paired[i]) out.frontend_nics.push_back(nic_values[i]);
  return out;
}

}  // namespace

NodeTopology topology_detail::inventory(const HwlocTopology& h) { return inventory_of(h); }

NodeTopology read_topology_xml(const std::string& path) {
  NodeTopology t = inventory_of(HwlocTopology::from_xml_file(path));
  t.source = "hwloc:" + path;
  return t;
}

}  // namespace srt

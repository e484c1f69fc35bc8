// ROCm SMI, loaded with dlopen only when asked: login nodes, slurmctld hosts and CI machines have
// no ROCm, and a hard link dependency would stop srt-helper from even starting there.
// Index spaces (rocm_smi_lib rocm-5.2.3 src/rocm_smi_main.cc): rsmi's dv_ind follows /sys/class/drm card
// order, hwloc's follows PCI order. They are joined on the PCI bus id, never on the index.
#include <cinttypes>
#include <cstdio>

#include "rsmi_api.hpp"
#include "srt/topology.hpp"

namespace srt {
namespace rsmi {
namespace {

template <typename F>
bool bind(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(::dlsym(lib, symbol));
  return out != nullptr;
}

}  // namespace

std::string status_text(const Api& api, rsmi_status_t s) {
  const char* text = nullptr;
  if (api.status_string && api.status_string(s, &text) == RSMI_STATUS_SUCCESS && text) return text;
  return "status " + std::to_string(static_cast<int>(s));
}

std::string format_bus_id(std::uint64_t bdfid) {
  // ROCm >= 6 puts the partition id in bits 31:28; bus/dev/fn are the low 16 bits.
  unsigned domain = static_cast<unsigned>(bdfid >> 32);
  unsigned low = static_cast<unsigned>(bdfid & 0xffff);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, (low >> 8) & 0xff, (low >> 3) & 0x1f, low & 0x7);
  return buf;
}

bool open(const std::vector<std::string>& library_names, Library& lib, Api& api, std::string& message) {
  static const std::vector<std::string> defaults = {
      "librocm_smi64.so.1", "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
      "librocm_smi64.so", "/opt/rocm/lib/librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"};
  const std::vector<std::string>& names = library_names.empty() ? defaults : library_names;
  std::string last_error;
  for (const std::string& n : names) {
    // RTLD_NODELETE: the library starts no threads we know of, but unloading C++ code with
    // static state from under a process that may dlopen it again is not worth the risk.
    lib.reset(::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE));
    if (lib) break;
    const char* e = ::dlerror();
    last_error = e ? e : n;
  }
  if (!lib) {
    message = "ROCm SMI library not found (" + last_error + ")";
    return false;
  }
  void* h = lib.get();
  const bool ok = bind(h, "rsmi_init", api.init) && bind(h, "rsmi_shut_down", api.shut_down) &&
                  bind(h, "rsmi_num_monitor_devices", api.num_devices) && bind(h, "rsmi_dev_pci_id_get", api.pci_id) &&
                  bind(h, "rsmi_dev_unique_id_get", api.unique_id) &&
                  bind(h, "rsmi_topo_numa_affinity_get", api.numa) && bind(h, "rsmi_dev_name_get", api.name);
  bind(h, "rsmi_status_string", api.status_string);
  bind(h, "rsmi_dev_memory_usage_get", api.memory_used);
  bind(h, "rsmi_dev_memory_total_get", api.memory_total);
  bind(h, "rsmi_compute_process_info_get", api.processes);
  bind(h, "rsmi_compute_process_gpus_get", api.process_gpus);
  bind(h, "rsmi_compute_process_info_by_pid_get", api.process_info);
  if (!ok) {
    message = "ROCm SMI library lacks a needed symbol";
    return false;
  }
  const rsmi_status_t s = api.init(0);
  if (s != RSMI_STATUS_SUCCESS) {
    // INIT_ERROR is what a node without amdgpu/KFD (or a login node) returns: not a job error.
    message = "ROCm SMI did not initialise (" + status_text(api, s) + "): no AMD GPU driver on this node?";
    return false;
  }
  return true;
}

}  // namespace rsmi

namespace {

// 5.2.3 declares the NUMA out-parameter uint32_t*, newer releases int32_t*: follow the header.
template <typename>
struct OutParam;
template <typename R, typename A, typename B>
struct OutParam<R (*)(A, B)> {
  using type = std::remove_pointer_t<B>;
};
using NumaValue = OutParam<decltype(&rsmi_topo_numa_affinity_get)>::type;

}  // namespace

RsmiInventory query_rsmi(const std::vector<std::string>& library_names) {
  RsmiInventory inv;
  rsmi::Library lib;
  rsmi::Api api;
  if (!rsmi::open(library_names, lib, api, inv.message)) {
    inv.message += "; GPU inventory from hwloc only";
    return inv;
  }
  rsmi::Session session(api);
  std::uint32_t count = 0;
  if (const rsmi_status_t s = api.num_devices(&count); s != RSMI_STATUS_SUCCESS) {
    inv.message = "rsmi_num_monitor_devices failed (" + rsmi::status_text(api, s) + ")";
    return inv;
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    RsmiGpu g;
    std::uint64_t bdfid = 0;
    if (api.pci_id(i, &bdfid) != RSMI_STATUS_SUCCESS) continue;  // unjoinable: skip, never guess
    g.bus_id = rsmi::format_bus_id(bdfid);
    std::uint64_t uid = 0;
    if (api.unique_id(i, &uid) == RSMI_STATUS_SUCCESS) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%" PRIx64, uid);
      g.unique_id = buf;
    }
    NumaValue numa{};
    if (api.numa(i, &numa) == RSMI_STATUS_SUCCESS && static_cast<std::int32_t>(numa) >= 0)
      g.numa = static_cast<int>(numa);
    char name[128] = "";
    if (api.name(i, name, sizeof name) == RSMI_STATUS_SUCCESS) g.name = name;
    inv.gpus.push_back(std::move(g));
  }
  inv.available = true;
  inv.message = "ROCm SMI: " + std::to_string(inv.gpus.size()) + " GPU(s)";
  return inv;
}

void merge_rsmi(NodeTopology& topo, const RsmiInventory& rsmi) {
  if (!rsmi.available) {
    topo.notes.push_back(rsmi.message);
    return;
  }
  std::vector<bool> joined(topo.gpus.size(), false);
  for (const RsmiGpu& r : rsmi.gpus) {
    bool found = false;
    for (std::size_t i = 0; i < topo.gpus.size(); ++i) {
      Gpu& g = topo.gpus[i];
      if (g.bus_id != r.bus_id) continue;
      g.unique_id = r.unique_id;
      if (g.numa < 0) g.numa = r.numa;
      joined[i] = found = true;
    }
    if (!found) topo.notes.push_back("ROCm SMI reports GPU " + r.bus_id + " that hwloc does not show");
  }
  for (std::size_t i = 0; i < topo.gpus.size(); ++i)
    if (!joined[i]) topo.notes.push_back("hwloc GPU " + topo.gpus[i].bus_id + " is unknown to ROCm SMI");
  topo.source += "+rsmi";
}

}  // namespace srt

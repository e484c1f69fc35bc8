// The clean-GPU check's view (docs/design.md "The batch step"): each GPU's VRAM in use and every compute
// process KFD lists, with its GPUs and VRAM, through the real ROCm SMI (dlopen, as the
// inventory). In tests the library reads a fake /sys with a busy GPU in it.
#include <algorithm>

#include "rsmi_api.hpp"
#include "srt/topology.hpp"

namespace srt {

RsmiUsage query_rsmi_usage(const std::vector<std::string>& library_names) {
  RsmiUsage usage;
  rsmi::Library lib;
  rsmi::Api api;
  if (!rsmi::open(library_names, lib, api, usage.message)) {
    usage.message += "; GPUs not checked";
    return usage;
  }
  rsmi::Session session(api);
  if (!api.memory_used || !api.processes || !api.process_gpus || !api.process_info) {
    usage.message = "this ROCm SMI library lacks the process and memory queries; GPUs not checked";
    return usage;
  }
  std::uint32_t count = 0;
  if (const rsmi_status_t s = api.num_devices(&count); s != RSMI_STATUS_SUCCESS) {
    usage.message = "rsmi_num_monitor_devices failed (" + rsmi::status_text(api, s) + "); GPUs not checked";
    return usage;
  }
  std::vector<std::string> bus_of(count);  // rsmi index -> bus id ("" = unknown)
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t bdfid = 0;
    if (api.pci_id(i, &bdfid) != RSMI_STATUS_SUCCESS) continue;
    RsmiGpuMemory g;
    g.bus_id = bus_of[i] = rsmi::format_bus_id(bdfid);
    g.known = api.memory_used(i, RSMI_MEM_TYPE_VRAM, &g.used) == RSMI_STATUS_SUCCESS;
    if (api.memory_total && api.memory_total(i, RSMI_MEM_TYPE_VRAM, &g.total) != RSMI_STATUS_SUCCESS) g.total = 0;
    usage.gpus.push_back(g);
  }

  // The list can grow between the count and the read: ask again, a bounded number of times.
  std::vector<rsmi_process_info_t> procs;
  rsmi_status_t s = RSMI_STATUS_SUCCESS;
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::uint32_t n = 0;
    if ((s = api.processes(nullptr, &n)) != RSMI_STATUS_SUCCESS) break;
    procs.assign(n + 8, rsmi_process_info_t{});
    std::uint32_t room = static_cast<std::uint32_t>(procs.size());
    s = api.processes(procs.data(), &room);
    if (s == RSMI_STATUS_SUCCESS) {
      procs.resize(std::min<std::size_t>(room, procs.size()));
      break;
    }
    if (s != RSMI_STATUS_INSUFFICIENT_SIZE) break;
  }
  if (s != RSMI_STATUS_SUCCESS) {
    usage.message = "rsmi_compute_process_info_get failed (" + rsmi::status_text(api, s) + "); GPUs not checked";
    return usage;
  }
  for (const rsmi_process_info_t& p : procs) {
    RsmiProcess rp;
    rp.pid = static_cast<int>(p.process_id);
    std::vector<std::uint32_t> devices(count + 1);
    std::uint32_t n = static_cast<std::uint32_t>(devices.size());
    // A process that ended since the list was read answers "not found": it holds nothing now.
    if (api.process_gpus(p.process_id, devices.data(), &n) != RSMI_STATUS_SUCCESS) continue;
    for (std::uint32_t k = 0; k < n && k < devices.size(); ++k)
      if (devices[k] < count && !bus_of[devices[k]].empty()) rp.bus_ids.push_back(bus_of[devices[k]]);
    rsmi_process_info_t info{};
    rp.vram_known = api.process_info(p.process_id, &info) == RSMI_STATUS_SUCCESS;
    if (rp.vram_known) rp.vram = info.vram_usage;
    usage.processes.push_back(std::move(rp));
  }
  usage.available = true;
  usage.message = "ROCm SMI: " + std::to_string(usage.gpus.size()) + " GPU(s), " +
                  std::to_string(usage.processes.size()) + " compute process(es)";
  return usage;
}

}  // namespace srt

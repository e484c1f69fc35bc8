// ROCm SMI through dlopen, shared by the inventory (rsmi.cpp) and the clean-GPU check
// (rsmi_usage.cpp). Internal to srt_core.
#pragma once
#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <rocm_smi/rocm_smi.h>

namespace srt::rsmi {

struct DlCloser {
  void operator()(void* h) const { ::dlclose(h); }
};
using Library = std::unique_ptr<void, DlCloser>;

// The header is used only for the prototypes; every call goes through these pointers.
struct Api {
  decltype(&rsmi_init) init = nullptr;
  decltype(&rsmi_shut_down) shut_down = nullptr;
  decltype(&rsmi_num_monitor_devices) num_devices = nullptr;
  decltype(&rsmi_dev_pci_id_get) pci_id = nullptr;
  decltype(&rsmi_dev_unique_id_get) unique_id = nullptr;
  decltype(&rsmi_topo_numa_affinity_get) numa = nullptr;
  decltype(&rsmi_dev_name_get) name = nullptr;
  decltype(&rsmi_status_string) status_string = nullptr;
  // The clean-GPU check's (optional for the inventory).
  decltype(&rsmi_dev_memory_usage_get) memory_used = nullptr;
  decltype(&rsmi_dev_memory_total_get) memory_total = nullptr;
  decltype(&rsmi_compute_process_info_get) processes = nullptr;
  decltype(&rsmi_compute_process_gpus_get) process_gpus = nullptr;
  decltype(&rsmi_compute_process_info_by_pid_get) process_info = nullptr;
};

// rsmi_shut_down when it goes out of scope.
class Session {
 public:
  explicit Session(const Api& api) : api_(api) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { api_.shut_down(); }

 private:
  const Api& api_;
};

// Loads the first library of `names` ({} = the usual sonames, then /opt/rocm), binds every
// symbol and calls rsmi_init. false with `message` saying why (no library, a missing symbol, no
// driver); the caller then holds no session.
bool open(const std::vector<std::string>& names, Library& lib, Api& api, std::string& message);

std::string status_text(const Api& api, rsmi_status_t s);
std::string format_bus_id(std::uint64_t bdfid);

}  // namespace srt::rsmi

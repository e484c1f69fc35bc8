#include "srt/gpu_clean.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace srt {
namespace {

std::string gpu_name(const GpuMemoryUse& g) { return "GPU " + std::to_string(g.index) + " (" + g.bus_id + ")"; }

// The process's own VRAM when ROCm SMI gives it, else what the GPU has in use.
std::string memory_of(const GpuMemoryUse& g, const GpuHolder& h) {
  if (h.vram_known) return "with " + format_bytes(h.vram) + " of VRAM";
  if (g.known) return "(the GPU has " + format_bytes(g.vram_used) + " of VRAM in use)";
  return "(VRAM unknown)";
}

std::string held_by(const GpuCleanFacts& f, const GpuMemoryUse& g, const GpuHolder& h) {
  std::string who = "PID " + std::to_string(h.pid) + " (" + (h.comm.empty() ? "?" : h.comm);
  if (h.uid != f.uid) who += ", uid " + (h.uid < 0 ? std::string("unknown") : std::to_string(h.uid));
  who += ")";
  return f.node + ": " + gpu_name(g) + " is held by " + who + " " + memory_of(g, h);
}

// Ours to end: the job's own user, and a Slurm job that is this one or no longer runs. A process
// of the user outside any job, or of a job still running, is the user's to decide about.
bool ours_left_behind(const GpuCleanFacts& f, const GpuHolder& h) {
  if (h.uid != f.uid || !h.job_id) return false;
  return *h.job_id == f.job_id || !h.job_running;
}

std::string why_not_ended(const GpuCleanFacts& f, const GpuHolder& h) {
  if (h.uid != f.uid)
    return ": not this job's user's process, and srt ends only its own user's leftovers; ask the node's admin, "
           "or resubmit with --exclude=" + f.node;
  if (!h.job_id)
    return ": your own process outside any Slurm job (or one whose environment cannot be read); end it "
           "(kill " + std::to_string(h.pid) + ") and resubmit, or resubmit with --exclude=" + f.node;
  return ": it belongs to your job " + std::to_string(*h.job_id) + ", which is still running; wait for it or "
         "scancel " + std::to_string(*h.job_id) + ", or resubmit with --exclude=" + f.node;
}

const GpuMemoryUse* job_gpu(const GpuCleanFacts& f, const std::string& bus_id) {
  for (const auto& g : f.gpus)
    if (g.bus_id == bus_id) return &g;
  return nullptr;
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  constexpr double kMiB = 1024.0 * 1024.0, kGiB = kMiB * 1024.0;
  char buf[48];
  if (bytes >= static_cast<std::uint64_t>(kGiB)) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
  else std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / kMiB);
  return buf;
}

GpuCleanVerdict judge_gpus(const GpuCleanFacts& f) {
  GpuCleanVerdict v;
  std::vector<std::string> named;  // job GPUs a live holder already accounts for
  for (const GpuHolder& h : f.holders) {
    // A dead process's KFD entry outlives it while the driver frees its memory: the device's
    // VRAM count below says whether anything is still held.
    if (!h.alive) continue;
    const GpuMemoryUse* first = nullptr;
    for (const auto& bus : h.bus_ids)
      if (const GpuMemoryUse* g = job_gpu(f, bus)) {
        if (!first) first = g;
        named.push_back(bus);
      }
    if (!first) continue;  // another job's GPUs on a shared node: not ours to judge
    if (ours_left_behind(f, h)) {
      v.end.push_back(h.pid);
      v.ending.push_back(f.node + ": PID " + std::to_string(h.pid) + " (" + h.comm + ") of " +
                         (*h.job_id == f.job_id ? "this job (nothing of it should run yet)"
                                                : "your earlier job " + std::to_string(*h.job_id)) +
                         ", which holds " + gpu_name(*first) + " " + memory_of(*first, h));
      continue;
    }
    v.problems.push_back(held_by(f, *first, h) + why_not_ended(f, h));
  }
  for (const GpuMemoryUse& g : f.gpus) {
    if (!g.known || g.vram_used <= f.idle_vram_bytes) continue;
    if (std::find(named.begin(), named.end(), g.bus_id) != named.end()) continue;
    v.problems.push_back(f.node + ": " + gpu_name(g) + " has " + format_bytes(g.vram_used) +
                         (g.vram_total ? " of " + format_bytes(g.vram_total) : std::string()) +
                         " of VRAM in use and no process on this node holds it (a clean GPU holds at most " +
                         format_bytes(f.idle_vram_bytes) +
                         ", profile gpu_idle_vram_mib): memory a dead process left, which a GPU reset frees (ask "
                         "the node's admin), or a process this node's PID namespace cannot see; resubmit with "
                         "--exclude=" + f.node);
  }
  return v;
}

}  // namespace srt

namespace srt {

StaleContainers stale_containers(const std::string& enroot_list, const std::vector<std::string>& keep) {
  StaleContainers out;
  constexpr std::string_view kPrefix = "pyxis_srt-";
  constexpr std::size_t kHex = 12;
  std::size_t from = enroot_list.find('\n');  // the header line
  while (from != std::string::npos && from < enroot_list.size()) {
    const std::size_t start = from + 1, end = std::min(enroot_list.find('\n', start), enroot_list.size());
    const std::string row = enroot_list.substr(start, end - start);
    from = end;
    const std::size_t name_end = std::min(row.find_first_of(" \t"), row.size());
    const std::string name = row.substr(0, name_end);
    if (name.size() != kPrefix.size() + kHex || name.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    if (name.find_first_not_of("0123456789abcdef", kPrefix.size()) != std::string::npos) continue;
    const std::string ours = name.substr(std::string_view("pyxis_").size());
    if (std::find(keep.begin(), keep.end(), ours) != keep.end()) continue;
    const std::size_t pid = row.find_first_not_of(" \t", name_end);
    const bool runs = pid != std::string::npos && row[pid] >= '1' && row[pid] <= '9';
    (runs ? out.running : out.remove).push_back(name);
  }
  return out;
}

}  // namespace srt

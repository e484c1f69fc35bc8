// srt-helper gpu-check: run by the launcher as one task per node, on the host, before any
// worker starts (docs/design.md "The batch step"). Asks ROCm SMI which processes hold this node's
// GPUs of the job and how much VRAM each has in use, ends what the job's user left behind in an
// earlier job (never anything else), looks again, and reports. Exit 0 clean (or no ROCm GPU here to
// check), 1 a GPU is busy (each line names node, GPU, PID and memory), 2 usage.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/gpu_holders.hpp"
#include "srt/process.hpp"
#include "slurmapi/job_state.hpp"
#include "srt/gpu_clean.hpp"
#include "srt/topology.hpp"

namespace srt::helper {
namespace {

struct Args {
  std::string node;
  long job_id = 0;
  long idle_vram_mib = 1024;
  std::string gpus;  // node indices, Slurm's list form; "" = Slurm's grant, else every GPU
  std::vector<std::string> specs;  // NODE:INDICES, one per node (the launcher's form)
  double grace_seconds = 10;
  bool report_only = false;
  bool pyxis_clean = false;
  std::vector<std::string> pyxis_keep;  // srt-<hex> names this job's steps use
};

std::string env_or(const char* name, const std::string& fallback = {}) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// "0-3,6" -> {0,1,2,3,6}; nullopt when it is not that form.
std::optional<std::vector<int>> parse_indices(const std::string& text) {
  std::vector<int> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    const std::size_t dash = item.find('-');
    char* stop = nullptr;
    const long lo = std::strtol(item.c_str(), &stop, 10);
    long hi = lo;
    if (item.empty() || stop == item.c_str()) return std::nullopt;
    if (dash != std::string::npos) {
      const char* rest = item.c_str() + dash + 1;
      hi = std::strtol(rest, &stop, 10);
      if (stop == rest) return std::nullopt;
    }
    if (*stop != '\0' || lo < 0 || hi < lo || hi > 1023) return std::nullopt;
    for (long i = lo; i <= hi; ++i) out.push_back(static_cast<int>(i));
    at = end + 1;
  }
  return out;
}

// Pending, running or suspended: its processes are the user's live work. A job slurmctld no
// longer knows finished long ago. When slurmctld does not answer, it counts as running: a
// process is never ended on a guess.
bool job_running(long job_id) {
  std::string error;
  const auto s = slurmapi::job_state(static_cast<std::uint64_t>(job_id), error);
  if (!s) return error.find("Invalid job id") == std::string::npos && error != "no such job";
  if (s->completing) return false;
  return s->state == "PENDING" || s->state == "RUNNING" || s->state == "SUSPENDED";
}

struct Observed {
  GpuCleanFacts facts;
  std::vector<ProcessIdentity> ids;  // per facts.holders
};

// ROCm SMI's view joined with /proc; nullopt (and `why`) when there is nothing to check here.
std::optional<Observed> observe(const Args& a, const std::string& node, std::string& why) {
  const RsmiUsage usage = query_rsmi_usage();
  if (!usage.available) {
    why = usage.message;
    return std::nullopt;
  }
  Observed o;
  GpuCleanFacts& f = o.facts;
  f.node = node;
  f.job_id = a.job_id;
  f.uid = static_cast<int>(::getuid());
  f.idle_vram_bytes = static_cast<std::uint64_t>(a.idle_vram_mib) * 1024 * 1024;
  // Node index = position in PCI bus order, as the Plan and Slurm's GRES count GPUs.
  std::vector<RsmiGpuMemory> by_bus = usage.gpus;
  std::sort(by_bus.begin(), by_bus.end(), [](const auto& x, const auto& y) { return x.bus_id < y.bus_id; });
  std::string wanted = a.gpus.empty() ? env_or("SLURM_STEP_GPUS", env_or("SLURM_JOB_GPUS")) : a.gpus;
  std::vector<int> indices;
  if (wanted.empty()) {
    for (std::size_t i = 0; i < by_bus.size(); ++i) indices.push_back(static_cast<int>(i));
  } else if (const auto parsed = parse_indices(wanted)) {
    indices = *parsed;
  } else {
    why = "'" + wanted + "' is not a GPU index list (0-3,6)";
    return std::nullopt;
  }
  for (int i : indices) {
    if (i >= static_cast<int>(by_bus.size())) continue;
    const RsmiGpuMemory& g = by_bus[static_cast<std::size_t>(i)];
    f.gpus.push_back({i, g.bus_id, g.used, g.total, g.known});
  }
  for (const RsmiProcess& p : usage.processes) {
    GpuHolder h;
    h.pid = p.pid;
    h.bus_ids = p.bus_ids;
    h.vram = p.vram;
    h.vram_known = p.vram_known;
    o.ids.push_back(read_holder(h));
    // Only the job user's own processes can be ended, so only theirs need slurmctld's answer.
    if (h.alive && h.job_id && h.uid == f.uid) h.job_running = *h.job_id == a.job_id || job_running(*h.job_id);
    f.holders.push_back(std::move(h));
  }
  return o;
}

// The user's own named pyxis containers of other images (srt/gpu_clean.hpp): enroot keeps its
// data per user, so `enroot list` shows nobody else's. Never fatal: a full disk is the admin's,
// and a job that can import its image runs without this.
void clean_pyxis_containers(const Args& a, const std::string& node) {
  int status = 0;
  const std::string list = sys::run_capture({"enroot", "list", "-f"}, 60, &status);
  if (status != 0) {
    std::printf("gpu-check: node %s: note: `enroot list -f` %s; named pyxis containers not cleaned\n", node.c_str(),
                status == 127 ? "is not on PATH" : ("failed (exit " + std::to_string(status) + ")").c_str());
    return;
  }
  const StaleContainers s = stale_containers(list, a.pyxis_keep);
  for (const auto& name : s.running)
    std::printf("gpu-check: node %s: kept: pyxis container %s of another image: a process runs in it\n", node.c_str(),
                name.c_str());
  for (const auto& name : s.remove) {
    if (a.report_only) {
      std::printf("gpu-check: node %s: would remove: pyxis container %s of another image\n", node.c_str(), name.c_str());
      continue;
    }
    sys::run_capture({"enroot", "remove", "-f", name}, 300, &status);
    std::printf("gpu-check: node %s: %s: pyxis container %s of another image%s\n", node.c_str(),
                status == 0 ? "removed" : "note", name.c_str(),
                status == 0 ? "" : (" could not be removed (exit " + std::to_string(status) + ")").c_str());
  }
}

void run(Args a) {
  const std::string node = this_node_name(a.node);
  if (a.pyxis_clean) clean_pyxis_containers(a, node);
  if (!a.specs.empty()) {
    // The launcher names every node's worker GPUs; this task takes its own node's.
    for (const auto& s : a.specs) {
      const std::size_t colon = s.rfind(':');
      if (colon == std::string::npos || colon == 0 || !parse_indices(s.substr(colon + 1))) {
        std::fprintf(stderr, "srt-helper gpu-check: '%s' is not NODE:INDICES (node1:0-7)\n", s.c_str());
        exit_code = 2;
        return;
      }
      if (s.substr(0, colon) == node) a.gpus = s.substr(colon + 1);
    }
    if (a.gpus.empty()) {
      std::printf("gpu-check: node %s: clean: no worker of the job has a GPU here\n", node.c_str());
      return;
    }
  }
  std::string why;
  auto seen = observe(a, node, why);
  if (!seen) {
    const bool usage_error = why.find("not a GPU index list") != std::string::npos;
    std::printf("gpu-check: node %s: %s: %s\n", node.c_str(), usage_error ? "error" : "not checked", why.c_str());
    exit_code = usage_error ? 2 : 0;
    return;
  }
  GpuCleanVerdict v = judge_gpus(seen->facts);
  if (!v.end.empty() && !a.report_only) {
    for (const auto& line : v.ending) std::printf("gpu-check: node %s: ending: %s\n", node.c_str(), line.c_str());
    std::vector<std::string> stuck;
    for (std::size_t i = 0; i < seen->facts.holders.size(); ++i) {
      const GpuHolder& h = seen->facts.holders[i];
      if (std::find(v.end.begin(), v.end.end(), h.pid) == v.end.end()) continue;
      const std::string r = end_holder(h, seen->ids[i], a.grace_seconds);
      if (!r.empty()) stuck.push_back(r);
    }
    // Look again: ending a process frees its memory in the driver, not at once everywhere.
    seen = observe(a, node, why);
    if (!seen) {
      std::printf("gpu-check: node %s: busy: ROCm SMI stopped answering after ending leftovers (%s)\n", node.c_str(),
                  why.c_str());
      exit_code = 1;
      return;
    }
    v = judge_gpus(seen->facts);
    for (const auto& s : stuck) v.problems.push_back(node + ": " + s);
  }
  for (const auto& line : v.ending)  // --report-only, or a second look still finding ours
    v.problems.push_back(line + (a.report_only ? " (not ended: --report-only)" : " (still there after it was ended)"));
  for (const auto& p : v.problems) std::printf("gpu-check: node %s: busy: %s\n", node.c_str(), p.c_str());
  if (!v.problems.empty()) {
    exit_code = 1;
    return;
  }
  std::printf("gpu-check: node %s: clean: %zu GPU(s), no process holds them, VRAM within %ld MiB each\n", node.c_str(),
              seen->facts.gpus.size(), a.idle_vram_mib);
}

}  // namespace

void add_gpu_check(CLI::App& app) {
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("gpu-check", "check that this node's GPUs of the job are free (the launcher runs it before any worker)");
  cmd->add_option("--node", a->node, "this node's name (default: $SLURMD_NODENAME, then the host name)");
  cmd->add_option("--job-id", a->job_id, "the job the GPUs are for (default: $SLURM_JOB_ID)");
  cmd->add_option("--idle-vram-mib", a->idle_vram_mib, "VRAM a GPU may hold with nothing on it (profile gpu_idle_vram_mib)")
      ->check(CLI::Range(0L, 1L << 24));
  cmd->add_option("--gpus", a->gpus, "node GPU indices to check (default: Slurm's grant, else every GPU)");
  cmd->add_option("--grace", a->grace_seconds, "seconds between SIGTERM and SIGKILL for a leftover of ours")
      ->check(CLI::Range(0.0, 600.0));
  cmd->add_option("SPEC", a->specs, "NODE:INDICES, one per node (others' are skipped); overrides --gpus");
  cmd->add_flag("--pyxis-clean", a->pyxis_clean, "also remove this user's named pyxis containers (pyxis_srt-<hex>) of other images");
  cmd->add_option("--pyxis-keep", a->pyxis_keep, "an srt-<hex> container name this job uses (repeatable)");
  cmd->add_flag("--report-only", a->report_only, "end nothing; report what would be ended");
  cmd->callback([a] {
    if (a->job_id == 0) {
      const std::string id = env_or("SLURM_JOB_ID");
      a->job_id = std::strtol(id.c_str(), nullptr, 10);
    }
    run(*a);
  });
}

}  // namespace srt::helper

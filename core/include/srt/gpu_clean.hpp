// Clean GPUs before any worker starts (docs/design.md "The batch step"). InferenceX's MI355X runs
// lost hours to GPUs the previous job left busy (168 GiB per GPU three hours later in one case):
// the new workers then die of out-of-memory after a model load, or run slowly beside a ghost. On
// every node, before the first worker, `srt-helper gpu-check` asks ROCm SMI which processes hold
// the job's GPUs and how much VRAM each GPU has in use; this judge says what to end and what stops
// the job. It ends only what is ours: a process of the job's own user left by an earlier job that
// is no longer running (or by this job itself). Anything else is named, with node, GPU, PID and
// memory, and the job stops before a worker starts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace srt {

struct GpuMemoryUse {
  int index = 0;              // node index: position in PCI bus order (Slurm's GRES index)
  std::string bus_id;
  std::uint64_t vram_used = 0;   // bytes, ROCm SMI's device-wide count
  std::uint64_t vram_total = 0;  // bytes; 0 = unknown
  bool known = false;            // ROCm SMI answered for this GPU's memory
};

// A process KFD lists (ROCm SMI's compute processes), with what /proc says of it.
struct GpuHolder {
  int pid = 0;
  std::vector<std::string> bus_ids;  // the GPUs it has queues on
  std::uint64_t vram = 0;            // bytes, summed over its GPUs (ROCm SMI gives the sum)
  bool vram_known = false;           // ROCm SMI could say (5.2.3: only if it opened every GPU)
  bool alive = false;                // /proc/<pid> exists (KFD keeps a dying process's entry)
  int uid = -1;                      // -1 = unreadable
  std::string comm;
  std::optional<long> job_id;        // its SLURM_JOB_ID, when readable
  bool job_running = false;          // that job is still pending, running or suspended
};

struct GpuCleanFacts {
  std::string node;
  long job_id = 0;
  int uid = -1;                           // the job's user
  std::vector<GpuMemoryUse> gpus;         // the job's GPUs on this node
  std::vector<GpuHolder> holders;         // every process KFD lists, any GPU
  std::uint64_t idle_vram_bytes = 0;      // what a GPU may hold with nothing of anyone's on it
};

struct GpuCleanVerdict {
  std::vector<int> end;                 // ours, left behind: end these, then look again
  std::vector<std::string> ending;      // per PID in `end`: "node: PID p (comm) of ... holds GPU ..."
  std::vector<std::string> problems;    // each stops the job; names node, GPU, PID, memory
  bool clean() const { return end.empty() && problems.empty(); }
};

GpuCleanVerdict judge_gpus(const GpuCleanFacts& facts);

// "12.5 GiB", "300 MiB": memory as a person reads it.
std::string format_bytes(std::uint64_t bytes);

}  // namespace srt

namespace srt {

// The launcher's own pyxis containers of other images. It names one
// container per image, `--container-name=srt-<12 hex of the image's sha256>`; with pyxis's
// default container_scope=global (pyxis 0.24 config.c) enroot keeps it as `pyxis_srt-<hex>`
// across jobs, so the next job of the same image skips the import. Those of images this job
// does not use only fill the node's disk: they go, unless a process runs in one (a running job
// of the user's). Job-scoped ones (`pyxis_<jobid>_srt-<hex>`) pyxis removes itself at job end.
struct StaleContainers {
  std::vector<std::string> remove;   // enroot names to `enroot remove -f`
  std::vector<std::string> running;  // ours of another image, but a process runs in it: kept
};
// `enroot list -f` output (a header line, then NAME [PID ...] rows) and the names this job's
// steps use ("srt-<hex>"). Rows that are not ours are never touched.
StaleContainers stale_containers(const std::string& enroot_list, const std::vector<std::string>& keep);

}  // namespace srt

// The GPU-visibility variables of a worker, consistent with what Slurm granted (the rule and
// why it is this one: srt/topology.hpp, "GPU visibility").
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "srt/error.hpp"
#include "srt/topology.hpp"
#include "srt/join.hpp"

namespace srt {

// Slurm writes plain comma lists of small integers. UUIDs ("GPU-<hex>") are possible with
// some gres.conf flags but carry no position, so they are refused rather than guessed at.
std::vector<int> parse_gpu_indices(const std::string& value, const std::string& name) {
  std::vector<int> out;
  if (value.empty()) return out;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = value.find(',', start);
    std::string tok = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(tok.c_str(), &end, 10);
    if (tok.empty() || *end != '\0' || errno != 0 || v < 0 || v > 4095 || tok[0] == '+' || tok[0] == '-')
      fail(name + "='" + value + "' is not a list of GPU indices",
           "srt-spank maps Slurm's integer indices; configure gres.conf without UUID flags");
    out.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> GpuVisibility::variables() const {
  return {{"ROCR_VISIBLE_DEVICES", rocr_visible_devices},
          {"HIP_VISIBLE_DEVICES", hip_visible_devices},
          {"CUDA_VISIBLE_DEVICES", cuda_visible_devices},
          {"GPU_DEVICE_ORDINAL", gpu_device_ordinal}};
}

GpuVisibility gpu_visibility_env(const std::string& granted_visible, const std::vector<int>& worker_gpus,
                                 const std::string& visible_devices_env_name,
                                 const std::string& granted_node_gpus) {
  const std::string name = visible_devices_env_name.empty() ? "the granted GPU list" : visible_devices_env_name;
  if (worker_gpus.empty()) fail("a worker needs at least one GPU");
  std::vector<int> visible = parse_gpu_indices(granted_visible, name);
  std::vector<int> node = parse_gpu_indices(granted_node_gpus, "SLURM_STEP_GPUS/SLURM_JOB_GPUS");
  if (!node.empty() && !visible.empty() && node.size() != visible.size())
    fail(name + "='" + granted_visible + "' and the granted node GPUs '" + granted_node_gpus +
         "' do not name the same number of devices");

  std::vector<int> rocr;
  for (int g : worker_gpus) {
    if (g < 0) fail("GPU index " + std::to_string(g) + " is negative");
    int mapped = -1;
    if (granted_visible.empty() && node.empty()) {
      mapped = g;  // no GPU GRES in play: ROCr sees every GPU of the node in PCI order
    } else if (node.empty()) {
      for (int v : visible)
        if (v == g) mapped = g;
    } else {
      // Without a visibility variable nothing says whether the devices cgroup renumbered the
      // GPUs (position p) or not (g); guessing wrong binds the wrong GPU, so refuse.
      if (visible.empty())
        fail("Slurm granted node GPUs '" + granted_node_gpus + "' but set no GPU visibility variable",
             "request the GPUs with the job (--gres=gpu:N, as srt-helper submit does: on Slurm 24.11 an "
             "--exclusive job that asked for none holds every GPU of its nodes, yet its steps get no "
             "visibility variable), or set AutoDetect=rsmi or Flags=amd_gpu_env in gres.conf so Slurm sets "
             "ROCR_VISIBLE_DEVICES");
      for (std::size_t p = 0; p < node.size(); ++p)
        if (node[p] == g) mapped = visible[p];
    }
    if (mapped < 0)
      fail("the worker's GPU " + std::to_string(g) + " is not among the GPUs Slurm granted (" + name + "='" +
               granted_visible + "'" + (node.empty() ? "" : ", node GPUs '" + granted_node_gpus + "'") + ")",
           "request the GPUs the recipe needs (--gres=gpu:N or --gpus-per-node) or fix the recipe's GPU split");
    for (int r : rocr)
      if (r == mapped) fail("GPU " + std::to_string(g) + " is named twice for one worker");
    rocr.push_back(mapped);
  }

  GpuVisibility out;
  out.rocr_visible_devices = join(rocr);
  std::vector<int> ordinals;
  for (std::size_t i = 0; i < rocr.size(); ++i) ordinals.push_back(static_cast<int>(i));
  out.hip_visible_devices = out.cuda_visible_devices = out.gpu_device_ordinal = join(ordinals);
  return out;
}

}  // namespace srt

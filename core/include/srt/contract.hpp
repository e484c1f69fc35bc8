// What a task sees from srt-spank (docs/design.md "The environment contract"). How the validated recipe
// travels from the submit host to every node is srt/snapshot.hpp.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "srt/plan.hpp"
#include "srt/snapshot.hpp"

namespace srt {

struct StepEnvironment {
  EnvList set;                       // in order
  std::vector<std::string> unset;
  const Process* worker = nullptr;   // the worker this step runs, for --srt-step steps
  std::string cpus;                  // the worker's CPU list after binding ("" = leave as granted)
  std::uint64_t job_id = 0;          // the Plan's: names the job's own files on the node
  std::vector<std::string> notes;    // what the node decided that the step's console should say
};

// What Slurm granted the step on this node, and the node's own address.
struct NodeGrant {
  std::string visible_devices;  // the value of the profile's visible_devices_env Slurm set ("" = none)
  std::string node_gpus;        // SLURM_STEP_GPUS / SLURM_JOB_GPUS ("" = unknown)
  std::string cpus;             // CPU list the step may use ("" = all)
  std::string host_ip;          // the node's data address, checked on its own interfaces ("" = the Plan's)
  // The RoCE v2 IPv4 GID index of the node's RDMA devices (read from sysfs by the node when the
  // profile's mooncake_gid_index is auto); a device without one is absent.
  std::map<std::string, int> roce_gid_index;
  // What preflight read the image's ATOM picks with no NIC configured (srt/rdma_nic.hpp
  // parse_atom_nic_pick), as the launcher hands it to the worker's step in SRT_ATOM_NIC_PICK; ""
  // (a step the launcher did not start) or a value that does not parse: the newest ATOM's pick.
  std::string atom_nic_pick;
};

// The variable the launcher names each worker step's ATOM NIC pick in (NodeGrant::atom_nic_pick).
inline constexpr const char* kAtomNicPickEnv = "SRT_ATOM_NIC_PICK";

// A worker step's per-node binding (docs/design.md "How ATOM runs"): the GPU-visibility set, the
// paired NICs (ib_device), NUMA nodes, CPU list and the Mooncake topology, from this node's
// topology. A node without GPUs in its topology keeps the Plan's environment.
void bind_step(StepEnvironment& env, const NodeTopology& topo, const NodeGrant& grant, const Profile& profile);

// Job-level variables for every task on `node_index`; with `step` ("prefill:0") also that
// worker's variables. Throws srt::Error when the step is unknown or belongs to another node.
StepEnvironment step_environment(const Plan& plan, int node_index, const std::string& step);

// "prefill:0" -> ok; anything else -> srt::Error naming the valid form.
void check_step_name(const std::string& step);

}  // namespace srt

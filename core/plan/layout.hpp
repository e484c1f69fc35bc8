// Internal to core/plan: where each endpoint runs, as srtctl decides it
// (NVIDIA/srt-slurm c88ef731 src/srtctl/core/topology.py: Nodes.from_slurm, allocate_endpoints).
#pragma once
#include <string>
#include <vector>

#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt::plan_detail {

struct Endpoint {
  WorkerMode mode;
  int index = 0;             // prefill_0, prefill_1, ... per mode
  int node = 0;              // index into the job's node list: the leader's
  std::vector<int> nodes;    // every node it spans (a worker wider than a node), leader first
  std::vector<int> gpus;     // node-local GPU indices
};

struct NodeRoles {
  int head = 0;              // runs the frontend (router)
  int bench = 0;             // runs the benchmark client
  int infra = 0;
  std::vector<int> workers;  // nodes available to endpoints, in Slurm order
};

struct WorkerCounts {
  int workers = 0;
  int gpus = 0;              // per worker
};

int gpus_per_node(const Recipe& r, const Profile& p);
WorkerCounts counts(const Recipe& r, const Profile& p, WorkerMode m);

int node_demand_impl(const Recipe& r);

// Nodes taken by dedicated roles (frontend/infra/benchmark client) on top of the workers'.
int dedicated_nodes(const Recipe& r);

NodeRoles assign_roles(const Recipe& r, int node_count);

// Endpoints in srtctl's order: prefill, then decode, then agg. Throws "Not enough nodes".
std::vector<Endpoint> place_endpoints(const Recipe& r, const Profile& p, const NodeRoles& roles,
                                      int node_count);

}  // namespace srt::plan_detail

#include "layout.hpp"

#include <string>

#include "srt/error.hpp"
#include "srt/mount_policy.hpp"
#include "srt/plan.hpp"

namespace srt::plan_detail {

int gpus_per_node(const Recipe& r, const Profile& p) {
  if (r.resources.gpus_per_node > 0) return r.resources.gpus_per_node;
  return p.gpus_per_node > 0 ? p.gpus_per_node : 4;  // srtctl's default when neither says
}

WorkerCounts counts(const Recipe& r, const Profile& p, WorkerMode m) {
  const Resources& res = r.resources;
  const int gpn = gpus_per_node(r, p);
  int nodes = 0, workers = 0, explicit_gpus = 0;
  switch (m) {
    case WorkerMode::prefill: nodes = res.prefill_nodes; workers = res.prefill_workers; explicit_gpus = res.gpus_per_prefill; break;
    case WorkerMode::decode: nodes = res.decode_nodes; workers = res.decode_workers; explicit_gpus = res.gpus_per_decode; break;
    case WorkerMode::agg: nodes = res.agg_nodes; workers = res.agg_workers; explicit_gpus = res.gpus_per_agg; break;
  }
  if (!res.disaggregated() && m == WorkerMode::agg) {
    if (nodes == 0) nodes = 1;
    if (workers == 0) workers = 1;
  }
  if (res.disaggregated() && m != WorkerMode::agg && nodes > 0 && workers == 0) workers = 1;
  WorkerCounts c;
  c.workers = workers;
  if (explicit_gpus > 0) {
    c.gpus = explicit_gpus;
  } else if (m == WorkerMode::decode && res.decode_nodes_given && res.decode_nodes == 0) {
    c.gpus = counts(r, p, WorkerMode::prefill).gpus;  // decode shares prefill nodes: same size
  } else if (workers > 0) {
    c.gpus = nodes * gpn / workers;  // srtctl: X_nodes * gpus_per_node // X_workers
  }
  return c;
}

int dedicated_nodes(const Recipe& r) {
  const int roles = int(r.frontend.dedicated_node) + int(r.infra_dedicated_node) +
                    int(r.benchmark.client_dedicated_node);
  if (roles == 0) return 0;
  return r.benchmark.colocate_with_frontend ? 1 : roles;
}

int node_demand_impl(const Recipe& r) {
  const Resources& res = r.resources;
  int total = res.disaggregated() ? res.prefill_nodes + res.decode_nodes
                                  : (res.agg_nodes > 0 ? res.agg_nodes : 1);
  return total + dedicated_nodes(r);
}

NodeRoles assign_roles(const Recipe& r, int n) {
  NodeRoles roles;
  std::vector<bool> reserved(n, false);
  const bool fe = r.frontend.dedicated_node, infra = r.infra_dedicated_node,
             client = r.benchmark.client_dedicated_node;
  if (!fe && !infra && !client) {
    for (int i = 0; i < n; ++i) roles.workers.push_back(i);
    return roles;  // head = bench = infra = node 0, which also runs prefill_0
  }
  if (r.benchmark.colocate_with_frontend) {
    // One shared reserved node: the first, unless a dedicated client is among them, then the last
    // (Slurm runs the batch script on the first node).
    const int shared = client ? n - 1 : 0;
    reserved[shared] = true;
    roles.head = roles.bench = roles.infra = shared;
  } else {
    int front = 0;
    if (infra) { roles.infra = front; reserved[front++] = true; }
    if (fe) { roles.head = front; reserved[front++] = true; } else { roles.head = -1; }
    if (client) { roles.bench = n - 1; reserved[n - 1] = true; } else { roles.bench = -1; }
    if (!infra) roles.infra = -1;
  }
  for (int i = 0; i < n; ++i)
    if (!reserved[i]) roles.workers.push_back(i);
  // head = the frontend node, else worker[0]; bench = the client node, else head; infra likewise.
  const int first_worker = roles.workers.empty() ? 0 : roles.workers.front();
  if (roles.head < 0) roles.head = first_worker;
  if (roles.bench < 0) roles.bench = roles.head;
  if (roles.infra < 0) roles.infra = roles.head;
  return roles;
}

namespace {

[[noreturn]] void not_enough_nodes(int need, int have) {
  fail("Not enough nodes: need node " + std::to_string(need) + ", but only " + std::to_string(have) +
           " available",
       "give the job at least " + std::to_string(need) + " worker nodes (srt-helper nodes RECIPE)");
}

}  // namespace

std::vector<Endpoint> place_endpoints(const Recipe& r, const Profile& p, const NodeRoles& roles,
                                      int /*node_count*/) {
  const int gpn = gpus_per_node(r, p);
  const int avail = int(roles.workers.size());
  std::vector<Endpoint> out;
  int node = 0, offset = 0;  // cursor into roles.workers
  const WorkerMode order[] = {WorkerMode::prefill, WorkerMode::decode, WorkerMode::agg};
  for (WorkerMode m : order) {
    const WorkerCounts c = counts(r, p, m);
    if (c.workers == 0) continue;
    if (c.gpus <= 0)
      fail(std::string("resources: ") + to_string(m) + " workers have no GPUs",
           "set gpus_per_" + std::string(m == WorkerMode::agg ? "agg" : to_string(m)) +
               " or the node count");
    const bool shares_prefill = m == WorkerMode::decode && r.resources.decode_nodes_given &&
                                r.resources.decode_nodes == 0;
    // Decode starts on a fresh node (no P/D co-location) unless it shares by design or none is left.
    if (m == WorkerMode::decode && offset > 0 && !shares_prefill && node + 1 < avail) {
      ++node;
      offset = 0;
    }
    for (int i = 0; i < c.workers; ++i) {
      Endpoint e{m, i, 0, {}, {}};
      if (c.gpus >= gpn) {
        if (offset > 0) { ++node; offset = 0; }
        const int span = (c.gpus + gpn - 1) / gpn;
        if (node + span > avail) not_enough_nodes(node + span, avail);
        e.node = roles.workers[node];
        for (int k = 0; k < span; ++k) e.nodes.push_back(roles.workers[node + k]);
        for (int g = 0; g < gpn; ++g) e.gpus.push_back(g);
        node += span;
      } else {
        if (offset + c.gpus > gpn) { ++node; offset = 0; }
        if (node >= avail) not_enough_nodes(node + 1, avail);
        e.node = roles.workers[node];
        e.nodes = {e.node};
        for (int g = 0; g < c.gpus; ++g) e.gpus.push_back(offset + g);
        offset += c.gpus;
        if (r.resources.spread_workers || offset == gpn) { ++node; offset = 0; }
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace srt::plan_detail

namespace srt {

const char* to_string(WorkerMode m) {
  switch (m) {
    case WorkerMode::prefill: return "prefill";
    case WorkerMode::decode: return "decode";
    case WorkerMode::agg: return "agg";
  }
  return "?";
}

// Every command that sizes or plans a recipe (validate, nodes, submit, plan, launch) checks its
// mounts against the profile first (srt/mount_policy.hpp).
int node_demand(const Recipe& recipe, const Profile& profile) {
  check_recipe_mounts(recipe, profile);
  return plan_detail::node_demand_impl(recipe);
}

}  // namespace srt

// Node side (slurmstepd, remote context). user_init runs once per step per node as the user:
// it rebuilds the Plan from the snapshot and sets the step's environment. Nothing here may fail
// user_init (a failure there drains the node): errors are kept and reported by task_init, which
// fails the job with the reason on its stderr.
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
}

#include "impl.hpp"
#include "slurmapi/addresses.hpp"
#include "slurmapi/hostlist.hpp"
#include "srt/contract.hpp"
#include "srt/data_network.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/job_plan.hpp"
#include "srt/limits.hpp"
#include "srt/rdma_sysfs.hpp"
#include "srt/snapshot.hpp"
#include "srt/topology.hpp"

namespace srt::spank_impl {

namespace {

// Per slurmstepd process: what user_init found, for task_init to report and apply.
std::string g_node_error;
std::string g_worker_cpus;
std::vector<std::string> g_notes;  // the binding's console lines (StepEnvironment::notes)

// This node's topology: the admin's XML, else the per-boot cache, else live discovery (cached).
NodeTopology node_topology(const PluginConfig& config, const Profile& profile) {
  TopologyOptions opts;
  opts.xml_path = config.topology_xml;
  opts.cache_dir = config.cache_dir.empty() ? profile.topology_cache_dir : config.cache_dir;
  return load_topology(opts);
}

// The CPUs this task may use now (what Slurm's task plugin left), as a list string.
std::string current_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

std::string job_getenv(spank_t sp, const char* name) {
  std::vector<char> buf(4096);
  for (;;) {
    spank_err_t rc = spank_getenv(sp, name, buf.data(), int(buf.size()));
    if (rc == ESPANK_SUCCESS) return buf.data();
    if (rc != ESPANK_NOSPACE) return "";  // absent: the caller says what is missing
    // Present but oversized: say so, rather than let the caller report it as absent.
    if (buf.size() > kMaxSnapshotBytes * 2)
      fail(std::string("the job's ") + name + " is larger than srt-spank reads (over " +
           std::to_string(buf.size()) + " bytes)");
    buf.resize(buf.size() * 4);
  }
}

// A node list Slurm should have set: its absence is Slurm's (or the job's environment's) doing,
// so say which variable, not the helper's --nodelist advice.
template <typename T>
T item(spank_t sp, spank_item_t what, const char* name) {
  T value{};
  if (spank_get_item(sp, what, &value) != ESPANK_SUCCESS) fail(std::string("Slurm did not give ") + name);
  return value;
}

// The list is read from the job's environment, which the user writes: it is expanded only up to
// the node count Slurm itself gives the step (S_JOB_NNODES), and never past kMaxJobNodes
// (srt/limits.hpp), however many hosts the text names. The batch step's slurmstepd is given no
// count (0, Slurm 22.05): there the stated limit alone bounds the job's list, and the Plan then
// refuses a list longer than the job it planned.
std::vector<std::string> node_list(spank_t sp, const char* var, bool step_list) {
  const std::string value = job_getenv(sp, var);
  if (value.find_first_not_of(" ,\t\n") == std::string::npos) fail(std::string("Slurm gave this step no ") + var);
  std::size_t bound = kMaxJobNodes;
  if (step_list) {
    const uint32_t nodes = item<uint32_t>(sp, S_JOB_NNODES, "the step's node count");
    if (nodes > 0) bound = std::min<std::size_t>(bound, nodes);
  }
  return slurmapi::expand_hostlist(value, bound);
}

void set_step_environment(spank_t sp, const srt_loader_state& state) {
  const PluginConfig config = parse_config(state);
  const std::string encoded = job_getenv(sp, SRT_SNAPSHOT_JOB_ENV);
  if (encoded.empty())
    fail("this step asks for srt-spank but no recipe snapshot reached the node",
         "submit with sbatch, salloc or srun --srt-recipe=FILE");
  const Snapshot snap = decode_snapshot(encoded);
  const uint32_t step_id = item<uint32_t>(sp, S_JOB_STEPID, "the step id");
  if (step_id == SLURM_EXTERN_CONT) return;  // no tasks run there

  const std::vector<std::string> job_nodes = node_list(sp, "SLURM_JOB_NODELIST", false);
  const bool batch = step_id == SLURM_BATCH_SCRIPT;
  JobFacts facts;
  facts.this_node = step_node_name(job_nodes, batch, batch ? std::vector<std::string>{} : node_list(sp, "SLURM_STEP_NODELIST", true),
                                   batch ? 0 : item<uint32_t>(sp, S_JOB_NODEID, "this node's index in the step"));
  const std::string& here = facts.this_node;
  check_snapshot_package(snap, kPackageVersion, "node " + here);
  // The node's own profile file, as root's parsed copy says it reads (never the snapshot's copy).
  std::vector<std::string> profile_notes;
  const Profile profile = node_profile(config, plugin_profile_path(config), snap, here, profile_notes);
  for (const std::string& line : profile_notes) slurm_info("srt: %s", line.c_str());  // the admin's, in slurmd's log

  facts.nodes = job_nodes;
  facts.job_id = item<uint32_t>(sp, S_JOB_ID, "the job id");
  facts.addresses = slurmapi::resolve_addresses(job_nodes, profile);
  const JobPlan job = plan_job(snap, profile, facts);
  const Plan& plan = job.plan;
  const int node_index = job.node_index;
  StepEnvironment env = step_environment(plan, node_index, state.step ? state.step : "");
  if (env.worker) {
    NodeGrant grant;
    grant.visible_devices = job_getenv(sp, profile.visible_devices_env.c_str());
    grant.atom_nic_pick = job_getenv(sp, kAtomNicPickEnv);
    grant.node_gpus = job_getenv(sp, "SLURM_STEP_GPUS");
    if (grant.node_gpus.empty()) grant.node_gpus = job_getenv(sp, "SLURM_JOB_GPUS");
    // What every node planned as this node's data address must be one of its own addresses (the
    // name service agrees with the node), on network_interface when the profile names one: the
    // worker advertises it as ATOM_HOST_IP, and Mooncake over TCP sends every KV byte through it.
    grant.host_ip = own_data_interface(here, plan.nodes[std::size_t(node_index)].address, profile,
                                       slurmapi::local_interfaces()).address;
    const NodeTopology topo = node_topology(config, profile);
    if (profile.mooncake_gid_index == kMooncakeGidAuto) {
      // Only then: sysfs is read for the worker's NICs, not in every step of every job.
      std::set<std::string> nics;
      for (const Gpu& g : topo.gpus)
        if (g.nic && !g.nic->rdma.empty()) nics.insert(g.nic->rdma);
      grant.roce_gid_index = roce_v2_gid_indexes("/sys", nics);
    }
    bind_step(env, topo, grant, profile);
    g_worker_cpus = env.cpus;
    g_notes = env.notes;
  }
  for (const auto& [name, value] : env.set) {
    spank_err_t rc = spank_setenv(sp, name.c_str(), value.c_str(), 1);
    if (rc != ESPANK_SUCCESS) fail("cannot set " + name + ": " + spank_strerror(rc));
  }
  for (const auto& name : env.unset) spank_unsetenv(sp, name.c_str());
}

int node_user_init(spank_t sp, const srt_loader_state& state) {
  // What task_init reports is this user_init's finding only, never one left from an earlier call.
  g_node_error.clear();
  g_worker_cpus.clear();
  g_notes.clear();
  try {
    set_step_environment(sp, state);
  } catch (const std::exception& e) {
    g_node_error = e.what();
    error_lines(g_node_error);  // to the slurmd log, for the admin
  }
  return 0;
}

int node_task_init(spank_t, const srt_loader_state&) {
  if (g_node_error.empty() && !g_worker_cpus.empty()) {
    // The worker's cores (its GPUs' local cores), never wider than what Slurm granted this task:
    // task_init runs after the task plugin bound the task, so intersect with that.
    const std::string cpus = cpulist_intersection(g_worker_cpus, current_cpus());
    cpu_set_t set;
    CPU_ZERO(&set);
    int n = 0;
    for (int c : cpulist_members(cpus))
      if (c < CPU_SETSIZE) { CPU_SET(c, &set); ++n; }
    if (n > 0 && sched_setaffinity(0, sizeof set, &set) != 0)
      std::fprintf(stderr, "srt: warning: could not bind to CPUs %s; keeping Slurm's binding\n", cpus.c_str());
    if (n == 0)
      std::fprintf(stderr, "srt: warning: the worker's cores (%s) are outside this task's grant; keeping Slurm's binding\n",
                   g_worker_cpus.c_str());
  }
  // What the node chose for this worker (its NICs), where the user reads the worker's output.
  if (g_node_error.empty())
    for (const std::string& line : g_notes) std::fprintf(stderr, "srt: %s\n", line.c_str());
  if (g_node_error.empty()) return 0;
  // task_init runs in the task itself: its stderr is the job's, where the user looks.
  std::fprintf(stderr, "srt: this job cannot run: %s\n", g_node_error.c_str());
  std::fflush(stderr);
  return -1;
}

}  // namespace

int node_dispatch(const std::string& callback, spank_t sp, const srt_loader_state& state) {
  if (spank_context() != S_CTX_REMOTE) return 0;
  if (callback == "user_init") return node_user_init(sp, state);
  if (callback == "task_init") return node_task_init(sp, state);
  return 0;
}

}  // namespace srt::spank_impl

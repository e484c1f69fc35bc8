// The checks of srt-helper doctor, grouped by what they look at. Each adds one line (or a few)
// to the report and never throws: a check that cannot run is itself a failure with a reason.
#pragma once
#include <string>

#include "report.hpp"
#include "srt/profile.hpp"
#include "srt/topology.hpp"

namespace srt::doctor {

// What Slurm on this node says about itself (scontrol), with fallbacks when slurmctld is down.
struct SlurmNode {
  std::string version;    // "22.05.8" ("" = scontrol not found)
  std::string plugstack;  // PlugStackConfig
  std::string plugin_dir; // PluginDir (':'-separated, as slurm.conf)
  bool from_controller = false;
};
SlurmNode read_slurm_node(const std::string& plugstack_override);

// The srt line of plugstack.conf and what it says (paths as the plugin will use them).
struct PluginLine {
  bool found = false;
  std::string plugin_path;   // spank_srt.so as Slurm resolves it
  std::string impl_path;     // impl= or the compiled-in default
  std::string profile_path;  // profile= or ""
  std::string cache_dir;     // cache_dir= or "" (the profile's topology_cache_dir)
};

PluginLine check_plugstack(Report& report, const SlurmNode& slurm);
void check_plugin_loads(Report& report, const SlurmNode& slurm, const PluginLine& line);
void check_implementation(Report& report, const PluginLine& line);

// Returns whether the profile loaded (later checks need it).
bool check_profile(Report& report, const std::string& path, Profile& profile);
bool check_topology(Report& report, const std::string& xml, const std::string& sysfs_root, const Profile& profile,
                    NodeTopology& topology);
void check_partition_mode(Report& report, const NodeTopology& topology);
// The per-boot topology cache slurmstepd reads as the job's user (it cannot write it there):
// present for this boot, missing (every step discovers again), or refused.
void check_topology_cache(Report& report, const std::string& cache_dir, const std::string& boot_id_path);
// Root's parsed copy of `profile` in `cache_dir` (plugstack.conf's cache_dir=, else the built-in
// directory), which slurmstepd plans with (srt/profile_copy.hpp).
void check_profile_copy(Report& report, const std::string& cache_dir, const Profile& profile);
// Whether a podman/docker container can reach other jobs' GPUs (node_sharing: shared).
void check_gpu_isolation(Report& report, const Profile& profile);
void check_ports(Report& report, const Profile& profile, const std::string& procfs_root);
void check_rdma(Report& report, const Profile& profile, const NodeTopology& topology, const std::string& sysfs_root);
// `node` is this node's Slurm name (doctor's --node or $SLURMD_NODENAME: `known`), else the host
// name, which may be a login node's: then a problem is a warning, not a failure.
void check_data_network(Report& report, const std::string& node, bool known, const Profile& profile);

// podman/docker: installed, answering, devices present, limits within the host's.
void check_container_runtime(Report& report, const Profile& profile);

// srt-spank's srtctl entry point: installed or not, and which srtctl PATH finds.
void check_srtctl(Report& report);

}  // namespace srt::doctor

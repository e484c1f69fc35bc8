// What srt-helper and its job-step module learn from the machine they run on: the cluster
// profile's path ($SRTSLURM_CONFIG, the installed default), this node's Slurm name, and where
// the running program lies (a build tree keeps srt-exec and srt-helper-jobstep.so beside it).
#pragma once
#include <string>

#include "srt/profile.hpp"

namespace srt::helper {

// srt::choose_profile_path with $SRTSLURM_CONFIG and whether `fallback` exists on this host.
std::string find_profile_path(const std::string& explicit_path, const std::string& fallback = SRT_DEFAULT_PROFILE);
// The profile named by --profile, else $SRTSLURM_CONFIG, else the installed default, else the
// built-in default. Throws srt::Error when the named profile is bad.
Profile load_profile(const std::string& explicit_path, const ReadOptions& read = {});

// The node a per-node task runs on, as Slurm names it (the Plan's names are Slurm's): `given`,
// else $SLURMD_NODENAME, else the host name up to its first dot, which is the node name on most
// clusters. `known`: the name is one of the first two, so certainly a compute node's.
struct NodeName {
  std::string name;
  bool known = false;
};
NodeName this_node(const std::string& given);
std::string this_node_name(const std::string& given);  // this_node(given).name

// The path srt-helper runs from (/proc/self/exe) and its directory, "" when unknown: in a build
// tree, srt-exec and srt-helper-jobstep.so lie beside it.
std::string executable_path();
std::string executable_dir();

}  // namespace srt::helper

// What a node's sysfs says about its RDMA devices (class/infiniband), for doctor and for the
// plugin's worker steps: read here, judged by the pure rules of srt/rdma_nic.hpp.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "srt/rdma_nic.hpp"

namespace srt {

// Port 1's GID table of `device` under `sysfs_root` (ports/1/gids/<i>, ports/1/gid_attrs/types/<i>),
// up to the first index that has neither; empty when the device is absent.
std::vector<GidEntry> read_gid_table(const std::string& sysfs_root, const std::string& device);

// Each device's RoCE v2 IPv4 GID index (roce_v2_ipv4_gid_index); a device with none is absent.
std::map<std::string, int> roce_v2_gid_indexes(const std::string& sysfs_root, const std::set<std::string>& devices);

}  // namespace srt

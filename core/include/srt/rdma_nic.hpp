// What an RDMA NIC offers Mooncake, and which NIC ATOM picks for a rank by itself: pure rules on
// values the caller read (sysfs, the visibility variables), shared by doctor and the node side.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace srt {

// One entry of a port's GID table, as sysfs gives it: ports/1/gids/<index> and
// ports/1/gid_attrs/types/<index> ("RoCE v2", "IB/RoCE v1"; empty when the entry is unused).
struct GidEntry {
  int index = 0;
  std::string type;
  std::string gid;  // "0000:0000:0000:0000:0000:ffff:0a00:0001"
};

// The index of the first RoCE v2 GID that holds an IPv4 address (::ffff:a.b.c.d): the one
// Mooncake's RDMA transport needs on a RoCE fabric (MC_GID_INDEX / mooncake_gid_index, what
// show_gids lists as "v2" with an IPv4 address). nullopt when the port has none (an InfiniBand
// fabric, a port without an IPv4 address).
std::optional<int> roce_v2_ipv4_gid_index(const std::vector<GidEntry>& gids);

// The RDMA device ATOM's Mooncake connector registers a rank on when no ib_device is configured
// (ROCm/ATOM atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py,
// _auto_select_ib_device, as of late September 2026): rdma<N> when the node has it, else
// ionic_<N> when it has that, else rdma<N> (which Mooncake then fails to open). N is the rank's
// entry in the visibility variable (ROCR_VISIBLE_DEVICES, else HIP_, else CUDA_): the number the
// node wrote there for that GPU, which under ConstrainDevices is Slurm's local index, not the
// GPU's PCI index. "" for a negative entry.
std::string atom_auto_nic(int entry, const std::set<std::string>& devices);

}  // namespace srt

// What an RDMA NIC offers Mooncake, and which NIC ATOM picks for a rank by itself: pure rules on
// values the caller read (sysfs, the visibility variables), shared by doctor and the node side.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "srt/topology.hpp"

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

// The pick the connector has in every ATOM since 2026-07 (ROCm/ATOM #1475 on): rdma<N>, else
// ionic_<N>, N the GPU's visibility entry. What the node assumes when preflight said nothing.
AtomNicPick newest_atom_nic_pick();
// "rdma+ionic_:physical", "rdma:visible", "every-nic", "unknown" (probe.py's `pick`); nullopt for
// anything else (the value comes from the job's environment).
std::optional<AtomNicPick> parse_atom_nic_pick(const std::string& text);
std::string to_string(const AtomNicPick& pick);

// The RDMA device ATOM's Mooncake connector registers a rank on when no ib_device is configured
// (ROCm/ATOM atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py,
// _auto_select_ib_device, as of late September 2026): rdma<N> when the node has it, else
// ionic_<N> when it has that, else rdma<N> (which Mooncake then fails to open). N is the rank's
// entry in the visibility variable (ROCR_VISIBLE_DEVICES, else HIP_, else CUDA_): the number the
// node wrote there for that GPU, which under ConstrainDevices is Slurm's local index, not the
// GPU's PCI index. "" for a negative entry.
std::string atom_auto_nic(int entry, const std::set<std::string>& devices);
// The same for a connector of `pick`: the first family whose name (with the rank's entry, or its
// ordinal for a visible pick) the node has, else the first family's name; "" for every_nic and
// unknown (no NIC of the rank's own).
std::string atom_auto_nic(const AtomNicPick& pick, int rank, int entry, const std::set<std::string>& devices);

// ATOM's pick for each rank of a worker (atom_auto_nic on the rank's visibility entry and the
// node's RDMA devices) beside what the hwloc pairing gives its GPU.
struct AtomNicGuess {
  int rank = 0;        // visible ordinal
  int gpu = -1;        // node GPU index
  int entry = -1;      // its ROCR_VISIBLE_DEVICES entry
  std::string guess;   // the NIC ATOM opens for it
  std::string paired;  // the NIC beside its GPU ("" when none)
  bool hit() const { return !paired.empty() && guess == paired; }
};
std::vector<AtomNicGuess> atom_nic_guesses(const WorkerBinding& binding);

// True when every rank's guess is its GPU's paired NIC: the worker can leave the choice to ATOM.
bool atom_guesses_follow_pairing(const std::vector<AtomNicGuess>& guesses);

// "GPU 0 ionic_0 (paired ionic_4), GPU 1 ..." for the ranks whose guess misses.
std::string atom_guess_misses(const std::vector<AtomNicGuess>& guesses);

}  // namespace srt

// GPU <-> NIC pairing by PCIe switch (ROCm/system-acceptance-docs docs/network/topology-mapping.md).
#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "srt/topology.hpp"

namespace srt {
namespace {

struct Meeting {
  std::uint64_t bridge = 0;
  int depth = -1;
};

// The lowest common ancestor, if it is a PCI-to-PCI bridge. A host bridge, Package or Group
// means "same socket, different switch": the frontend-NIC trap, never a pairing.
std::optional<Meeting> meet(const PciEndpoint& gpu, const PciEndpoint& nic) {
  for (const PciAncestor& a : gpu.path) {
    for (const PciAncestor& b : nic.path) {
      if (a.id != b.id) continue;
      if (!a.pci_bridge) return std::nullopt;
      return Meeting{a.id, a.bridge_depth};
    }
  }
  return std::nullopt;
}

}  // namespace

NicPairing pair_nics(const std::vector<PciEndpoint>& gpus, const std::vector<PciEndpoint>& nics) {
  const std::size_t ng = gpus.size(), nn = nics.size();
  std::vector<std::vector<std::optional<Meeting>>> lca(ng, std::vector<std::optional<Meeting>>(nn));
  for (std::size_t g = 0; g < ng; ++g)
    for (std::size_t n = 0; n < nn; ++n) lca[g][n] = meet(gpus[g], nics[n]);

  NicPairing out;
  out.nic_of_gpu.assign(ng, -1);
  out.shared.assign(ng, false);
  std::vector<bool> claimed(nn, false);

  auto by_bus = [](const std::vector<PciEndpoint>& eps) {
    return [&eps](std::size_t a, std::size_t b) { return eps[a].bus_id < eps[b].bus_id; };
  };

  // Rounds, deepest meeting bridge first, so a NIC on a GPU's own downstream port is taken
  // before a GPU that only shares the switch's upstream port can claim it. Within one bridge,
  // GPUs and NICs are zipped in bus-id order: on boards with two GPUs and two NICs per switch
  // the OS cannot tell which NIC is "meant", and bus order is stable across boots (pci=bfsort)
  // while RDMA names are not.
  for (;;) {
    int depth = -1;
    for (std::size_t g = 0; g < ng; ++g) {
      if (out.nic_of_gpu[g] >= 0) continue;
      for (std::size_t n = 0; n < nn; ++n)
        if (!claimed[n] && lca[g][n]) depth = std::max(depth, lca[g][n]->depth);
    }
    if (depth < 0) break;
    std::map<std::uint64_t, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> groups;
    for (std::size_t g = 0; g < ng; ++g) {
      if (out.nic_of_gpu[g] >= 0) continue;
      for (std::size_t n = 0; n < nn; ++n) {
        if (claimed[n] || !lca[g][n] || lca[g][n]->depth != depth) continue;
        auto& grp = groups[lca[g][n]->bridge];
        if (std::find(grp.first.begin(), grp.first.end(), g) == grp.first.end()) grp.first.push_back(g);
        if (std::find(grp.second.begin(), grp.second.end(), n) == grp.second.end()) grp.second.push_back(n);
      }
    }
    bool progress = false;
    for (auto& [bridge, grp] : groups) {
      auto& [gs, ns] = grp;
      std::sort(gs.begin(), gs.end(), by_bus(gpus));
      std::sort(ns.begin(), ns.end(), by_bus(nics));
      for (std::size_t i = 0; i < gs.size() && i < ns.size(); ++i) {
        out.nic_of_gpu[gs[i]] = static_cast<int>(ns[i]);
        claimed[ns[i]] = true;
        progress = true;
      }
    }
    // Bridges at equal depth have disjoint subtrees, so every group pairs at least one GPU.
    if (!progress) break;
  }

  // More GPUs than NICs under a switch (one NIC per two GPUs): the leftover GPU still has a
  // NIC behind its own switch, which beats anything across the CPU. Share the nearest.
  for (std::size_t g = 0; g < ng; ++g) {
    if (out.nic_of_gpu[g] >= 0) continue;
    int best = -1;
    for (std::size_t n = 0; n < nn; ++n) {
      if (!lca[g][n]) continue;
      if (best < 0 || lca[g][n]->depth > lca[g][static_cast<std::size_t>(best)]->depth ||
          (lca[g][n]->depth == lca[g][static_cast<std::size_t>(best)]->depth &&
           nics[n].bus_id < nics[static_cast<std::size_t>(best)].bus_id))
        best = static_cast<int>(n);
    }
    if (best < 0) continue;
    out.nic_of_gpu[g] = best;
    out.shared[g] = true;
    for (std::size_t h = 0; h < ng; ++h)
      if (out.nic_of_gpu[h] == best) out.shared[h] = true;
  }
  return out;
}

}  // namespace srt

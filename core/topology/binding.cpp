// Per-worker binding: the lists one ATOM process hands to all its ranks (docs/design.md "How
// ATOM runs": NICs, NUMA, CPU affinity, Mooncake topology).
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "hwloc_handle.hpp"
#include "srt/error.hpp"
#include "srt/topology.hpp"

#include "srt/rdma_nic.hpp"

namespace srt {

using topology_detail::parse_list;
using topology_detail::to_list;

std::string cpulist_union(const std::string& a, const std::string& b) {
  auto x = parse_list(a, "CPU list");
  auto y = parse_list(b, "CPU list");
  hwloc_bitmap_or(x.get(), x.get(), y.get());
  return to_list(x.get());
}

std::vector<int> cpulist_members(const std::string& list) {
  auto set = parse_list(list, "CPU list");
  std::vector<int> out;
  for (int c = hwloc_bitmap_first(set.get()); c >= 0; c = hwloc_bitmap_next(set.get(), c)) out.push_back(c);
  return out;
}

std::string cpulist_intersection(const std::string& a, const std::string& b) {
  auto x = parse_list(a, "CPU list");
  auto y = parse_list(b, "CPU list");
  hwloc_bitmap_and(x.get(), x.get(), y.get());
  return to_list(x.get());
}

namespace {

bool is_backend(const Gpu& g) { return g.nic && !g.nic->rdma.empty(); }

std::string mooncake_json(const NodeTopology& topo, const std::vector<int>& gpus) {
  // Backend rails in bus order, each once (a NIC shared by two GPUs appears once).
  std::vector<const Nic*> rails;
  for (const Gpu& g : topo.gpus) {
    if (!is_backend(g)) continue;
    bool seen = std::any_of(rails.begin(), rails.end(), [&](const Nic* n) { return n->rdma == g.nic->rdma; });
    if (!seen) rails.push_back(&*g.nic);
  }
  auto others = [&](const std::vector<std::string>& preferred, int numa) {
    std::vector<std::string> same_numa, all;
    for (const Nic* n : rails) {
      if (std::find(preferred.begin(), preferred.end(), n->rdma) != preferred.end()) continue;
      all.push_back(n->rdma);
      if (numa >= 0 && n->numa == numa) same_numa.push_back(n->rdma);
    }
    return same_numa.empty() ? all : same_numa;
  };

  Json doc = Json::object();
  std::set<int> numas;
  for (std::size_t ordinal = 0; ordinal < gpus.size(); ++ordinal) {
    const Gpu& g = topo.gpus[static_cast<std::size_t>(gpus[ordinal])];
    std::vector<std::string> preferred;
    if (is_backend(g)) preferred.push_back(g.nic->rdma);
    if (g.numa >= 0) numas.insert(g.numa);
    doc["hip:" + std::to_string(ordinal)] = Json::array({preferred, others(preferred, g.numa)});
  }
  // Host buffers are looked up by NUMA node: prefer this worker's own rails there.
  for (int numa : numas) {
    std::vector<std::string> preferred;
    for (int gi : gpus) {
      const Gpu& g = topo.gpus[static_cast<std::size_t>(gi)];
      if (g.numa == numa && is_backend(g) &&
          std::find(preferred.begin(), preferred.end(), g.nic->rdma) == preferred.end())
        preferred.push_back(g.nic->rdma);
    }
    doc["cpu:" + std::to_string(numa)] = Json::array({preferred, others(preferred, numa)});
  }
  return doc.dump();
}

}  // namespace

WorkerBinding bind_worker(const NodeTopology& topo, const std::vector<int>& gpus,
                          const std::string& granted_cpus) {
  const std::string& mode = topo.partition_mode;
  if (mode == "DPX" || mode == "QPX" || mode == "CPX")
    fail("the node's GPUs are in compute partition mode " + mode,
         "ROCm SMI 5.2.3 cannot map logical GPUs to PCI devices; switch the node to SPX");
  if (gpus.empty()) fail("a worker needs at least one GPU");

  WorkerBinding b;
  std::set<int> seen;
  std::string cpus;
  for (int gi : gpus) {
    if (gi < 0 || static_cast<std::size_t>(gi) >= topo.gpus.size())
      fail("GPU index " + std::to_string(gi) + " does not exist on this node",
           "the node has " + std::to_string(topo.gpus.size()) + " GPU(s)");
    if (!seen.insert(gi).second) fail("GPU index " + std::to_string(gi) + " is given twice");
    const Gpu& g = topo.gpus[static_cast<std::size_t>(gi)];
    b.gpus.push_back(gi);
    b.ib_devices.push_back(g.nic ? g.nic->rdma : "");
    b.numa_nodes.push_back(g.numa);
    cpus = cpulist_union(cpus, g.cpuset);
  }

  if (granted_cpus.empty()) {
    b.cpus = cpus;
    b.cpus_fell_back = cpus.empty();  // no locality known: "" = the whole grant
  } else {
    b.cpus = cpulist_intersection(cpus, granted_cpus);
    if (b.cpus.empty()) {
      // Slurm gave cores on the other socket: running there is slower, not wrong; an empty
      // affinity mask would make sched_setaffinity fail.
      b.cpus = to_list(parse_list(granted_cpus, "granted CPU list").get());
      b.cpus_fell_back = true;
    }
  }
  b.mooncake_topology = mooncake_json(topo, gpus);
  b.visible_entries = b.gpus;  // the node index, until the node's visibility value says otherwise
  for (const Gpu& g : topo.gpus)
    if (g.nic && !g.nic->rdma.empty()) b.rdma_devices.insert(g.nic->rdma);
  for (const Nic& n : topo.frontend_nics)
    if (!n.rdma.empty()) b.rdma_devices.insert(n.rdma);
  return b;
}

std::vector<RankNics> rank_nics(const WorkerBinding& b, bool atom_picks) {
  if (atom_picks) {
    std::vector<RankNics> out;
    for (const AtomNicGuess& g : atom_nic_guesses(b)) {
      RankNics n;
      n.rank = g.rank;
      n.gpu = g.gpu;
      n.location = "hip:" + std::to_string(g.rank);
      n.preferred = n.opens = {g.guess};
      out.push_back(std::move(n));
    }
    return out;
  }
  // The topology file is this binding's own JSON (mooncake_json above).
  const Json topo = Json::parse(b.mooncake_topology, nullptr, false);
  std::vector<std::string> opens;
  auto add = [&opens](const Json& list) {
    if (!list.is_array()) return;
    for (const auto& n : list)
      if (n.is_string() && std::find(opens.begin(), opens.end(), n.get<std::string>()) == opens.end())
        opens.push_back(n.get<std::string>());
  };
  if (topo.is_object())
    for (const auto& [key, entry] : topo.items())
      if (entry.is_array())
        for (const auto& list : entry) add(list);
  std::vector<RankNics> out;
  for (std::size_t r = 0; r < b.gpus.size(); ++r) {
    RankNics n;
    n.rank = int(r);
    n.gpu = b.gpus[r];
    n.location = "hip:" + std::to_string(r);
    if (topo.is_object() && topo.contains(n.location) && topo[n.location].is_array() && !topo[n.location].empty())
      for (const auto& nic : topo[n.location][0])
        if (nic.is_string()) n.preferred.push_back(nic.get<std::string>());
    n.opens = opens;
    out.push_back(std::move(n));
  }
  return out;
}

Json topology_to_json(const NodeTopology& topo) {
  auto nic_json = [](const Nic& n) {
    return Json{{"rdma", n.rdma}, {"netdev", n.netdev}, {"bus_id", n.bus_id}, {"numa", n.numa}};
  };
  Json gpus = Json::array();
  for (const Gpu& g : topo.gpus) {
    char dev[8];
    std::snprintf(dev, sizeof dev, "%04x", g.device_id);
    Json j{{"index", g.index}, {"bus_id", g.bus_id}, {"device_id", std::string("0x") + dev},
           {"numa", g.numa}, {"cpuset", g.cpuset}};
    j["nic"] = g.nic ? nic_json(*g.nic) : Json(nullptr);
    if (g.nic_shared) j["nic_shared"] = true;
    if (!g.unique_id.empty()) j["unique_id"] = g.unique_id;
    gpus.push_back(std::move(j));
  }
  Json frontend = Json::array();
  for (const Nic& n : topo.frontend_nics) frontend.push_back(nic_json(n));
  return Json{{"gpus", gpus}, {"frontend_nics", frontend}, {"partition_mode", topo.partition_mode},
              {"source", topo.source}, {"notes", topo.notes}};
}

}  // namespace srt

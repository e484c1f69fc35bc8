// srt-helper topology: what this node's (or a fixture's) GPUs, NICs and cores look like to srt.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "commands.hpp"
#include "srt/topology.hpp"

namespace srt::helper {
namespace {

struct TopologyArgs {
  std::string xml;
  std::string cache_dir;
  bool json = false;
  bool rsmi = false;
};

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

void print_text(const NodeTopology& t) {
  std::printf("source: %s\npartition mode: %s\n", t.source.c_str(), t.partition_mode.c_str());
  std::printf("%-4s %-13s %-5s %-22s %-14s %-12s %-13s %s\n", "GPU", "BUS ID", "NUMA", "CPUSET", "RDMA", "NETDEV",
              "NIC BUS ID", "UNIQUE ID");
  for (const Gpu& g : t.gpus) {
    std::string rdma = g.nic ? or_dash(g.nic->rdma) + (g.nic_shared ? "*" : "") : "-";
    std::printf("%-4d %-13s %-5d %-22s %-14s %-12s %-13s %s\n", g.index, g.bus_id.c_str(), g.numa,
                g.cpuset.c_str(), rdma.c_str(), g.nic ? or_dash(g.nic->netdev).c_str() : "-",
                g.nic ? g.nic->bus_id.c_str() : "-", g.unique_id.c_str());
  }
  if (t.gpus.empty()) std::printf("(no AMD GPU)\n");
  std::printf("frontend NICs:");
  for (const Nic& n : t.frontend_nics)
    std::printf(" %s/%s@%s(numa %d)", or_dash(n.rdma).c_str(), or_dash(n.netdev).c_str(), n.bus_id.c_str(), n.numa);
  std::printf("%s\n", t.frontend_nics.empty() ? " none" : "");
  if (std::any_of(t.gpus.begin(), t.gpus.end(), [](const Gpu& g) { return g.nic_shared; }))
    std::printf("* NIC shared by GPUs of one switch\n");
  for (const std::string& n : t.notes) std::printf("note: %s\n", n.c_str());
}

}  // namespace

void add_topology(CLI::App& app) {
  auto args = std::make_shared<TopologyArgs>();
  CLI::App* cmd = app.add_subcommand("topology", "Show this node's GPUs, their paired NICs, NUMA nodes and cores");
  cmd->add_option("--xml", args->xml, "Read an hwloc XML topology instead of this machine (default: $HWLOC_XMLFILE)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_flag("--rsmi", args->rsmi, "Also ask ROCm SMI (unique ids; joined on PCI bus id)");
  cmd->add_option("--cache-dir", args->cache_dir, "Per-node topology cache (hwloc XML keyed by boot id)");
  cmd->callback([args] {
    TopologyOptions opts;
    opts.xml_path = args->xml;
    if (opts.xml_path.empty())
      if (const char* env = std::getenv("HWLOC_XMLFILE"); env && *env) opts.xml_path = env;
    opts.cache_dir = args->cache_dir;
    opts.use_rsmi = args->rsmi;
    NodeTopology t = load_topology(opts);
    if (args->json)
      std::printf("%s\n", topology_to_json(t).dump(2).c_str());
    else
      print_text(t);
    exit_code = 0;
  });
}

}  // namespace srt::helper

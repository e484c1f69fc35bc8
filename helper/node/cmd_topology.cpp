// srt-helper topology: what this node's (or a fixture's) GPUs, NICs and cores look like to srt.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "commands.hpp"
#include "srt/error.hpp"
#include "srt/profile_copy.hpp"
#include "srt/this_host.hpp"
#include "srt/topology.hpp"

namespace srt::helper {
namespace {

struct TopologyArgs {
  std::string xml;
  std::string cache_dir;
  std::string profile;
  std::string boot_id = TopologyOptions{}.boot_id_path;
  bool refresh = false;
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

// Root's step at boot and install (helper/srt-topology-cache.service.in): slurmstepd reads the
// cache as the job's user, who cannot write the root-owned directory. Two files: this boot's
// topology, and the parsed copy of the node's profile that slurmstepd plans with (it links no
// YAML parser, and the snapshot's copy is the user's: srt/profile_copy.hpp).
void refresh(const TopologyArgs& args) {
  if (!args.xml.empty()) fail("--refresh-cache discovers this machine; --xml names another", "drop --xml");
  const Profile profile = load_profile(args.profile);
  TopologyOptions opts;
  opts.boot_id_path = args.boot_id;
  opts.cache_dir = args.cache_dir.empty() ? profile.topology_cache_dir : args.cache_dir;
  const CacheRefresh r = refresh_topology_cache(opts);
  std::printf("wrote %s (%zu GPUs)", r.path.c_str(), r.topology.gpus.size());
  if (r.removed) std::printf("; removed %zu of earlier boots", r.removed);
  std::printf("\n");
  // The node looks for it in plugstack.conf's cache_dir=, else the built-in directory: not in a
  // directory the profile names, which it cannot read before it has the profile.
  if (!profile.digest.empty()) {
    const ProfileCopyWrite w =
        write_profile_copy(profile_copy_dir(args.cache_dir), profile.digest, profile.source.root, SRT_VERSION);
    std::printf("wrote %s (%s as this srt-spank reads it)", w.path.c_str(), profile.source.file.c_str());
    if (w.removed) std::printf("; removed %zu of other profiles", w.removed);
    std::printf("\n");
  }
  exit_code = 0;
}

}  // namespace

void add_topology(CLI::App& app) {
  auto args = std::make_shared<TopologyArgs>();
  CLI::App* cmd = app.add_subcommand("topology", "Show this node's GPUs, their paired NICs, NUMA nodes and cores");
  cmd->add_option("--xml", args->xml, "Read an hwloc XML topology instead of this machine (default: $HWLOC_XMLFILE)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_flag("--rsmi", args->rsmi, "Also ask ROCm SMI (unique ids; joined on PCI bus id)");
  cmd->add_option("--cache-dir", args->cache_dir, "Per-node topology cache (the inventory keyed by boot id)");
  cmd->add_flag("--refresh-cache", args->refresh, "As root: discover this machine and write this boot's cache "
                "(--cache-dir, else the profile's topology_cache_dir), removing earlier boots', and the parsed copy "
                "of the profile that slurmstepd plans with (--cache-dir, else " + std::string(kDefaultCacheDir) + ")");
  cmd->add_option("--profile", args->profile, "Cluster profile --refresh-cache copies (and whose topology_cache_dir it fills) "
                  "(default: $SRTSLURM_CONFIG, then " SRT_DEFAULT_PROFILE ")");
  cmd->add_option("--boot-id", args->boot_id, "File holding this boot's id (default " + args->boot_id + "; for tests)");
  cmd->callback([args] {
    if (args->refresh) return refresh(*args);
    TopologyOptions opts;
    opts.xml_path = args->xml;
    if (opts.xml_path.empty())
      if (const char* env = std::getenv("HWLOC_XMLFILE"); env && *env) opts.xml_path = env;
    opts.cache_dir = args->cache_dir;
    opts.boot_id_path = args->boot_id;
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

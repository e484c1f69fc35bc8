// The node itself: the profile the plugin will read, GPUs and their NICs, the kernel's port
// ranges against the profile's allocator range, and for Mooncake over RDMA the limits and ports.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "srt/cli.hpp"
#include "checks.hpp"
#include "srt/error.hpp"
#include "srt/port_ranges.hpp"
#include "srt/profile_copy.hpp"
#include "srt/join.hpp"
#include "srt/files.hpp"
#include "srt/rdma_nic.hpp"
#include "srt/rdma_sysfs.hpp"

namespace srt::doctor {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string join(const std::vector<PortSpan>& spans) {
  return srt::join(spans, ",", [](const PortSpan& s) { return to_string(s); });
}

std::string dash(const std::string& s) { return s.empty() ? "-" : s; }

// The RDMA devices the node has (class/infiniband's entries), as ATOM's connector looks for them.
std::set<std::string> rdma_devices(const std::string& sysfs_root) {
  std::set<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(sysfs_root + "/class/infiniband", ec), end; !ec && it != end;
       it.increment(ec))
    out.insert(it->path().filename().string());
  return out;
}

// Which NIC ATOM's connector opens for each GPU by itself (its rdma<N>/ionic_<N> pick, N the GPU's
// entry in ROCR_VISIBLE_DEVICES, its index on a whole node) against the hwloc pairing.
void check_atom_nic_pick(Report& report, const NodeTopology& topology, const std::set<std::string>& devices) {
  std::vector<std::string> misses;
  int paired = 0;
  for (const Gpu& g : topology.gpus) {
    if (!g.nic || g.nic->rdma.empty()) continue;
    ++paired;
    const std::string guess = atom_auto_nic(g.index, devices);
    if (guess != g.nic->rdma) misses.push_back("GPU " + std::to_string(g.index) + " " + guess + " (paired: " + g.nic->rdma + ")");
  }
  if (misses.empty()) {
    report.ok("atom-nic", "ATOM's own pick (rdma<N>, else ionic_<N>) is the paired NIC of all " + std::to_string(paired) +
                              " GPUs");
    return;
  }
  std::string shown;
  for (std::size_t i = 0; i < misses.size() && i < 3; ++i) shown += (i ? "; " : "") + misses[i];
  report.warn("atom-nic",
              std::to_string(misses.size()) + " of " + std::to_string(paired) + " GPUs: ATOM's own pick is not the paired NIC: " +
                  shown + (misses.size() > 3 ? "; ..." : ""),
              "nothing to do: srt-spank names the paired NICs for ATOM's ranks (ATOM_MOONCAKE_IB_DEVICE); a recipe "
              "that sets its own ib_device keeps it");
}

// The RoCE v2 IPv4 GID index each paired NIC carries, against the profile's mooncake_gid_index
// (with `auto`, each worker's node sets the index its NICs share: they must agree).
void check_gid_index(Report& report, const Profile& profile, const std::set<std::string>& paired,
                     const std::string& sysfs_root) {
  const std::map<std::string, int> indexes = roce_v2_gid_indexes(sysfs_root, paired);
  std::vector<std::string> found, differ, none;
  std::set<int> seen;
  for (const std::string& dev : paired) {
    const auto it = indexes.find(dev);
    if (it == indexes.end()) {
      none.push_back(dev);
      continue;
    }
    found.push_back(dev + " " + std::to_string(it->second));
    seen.insert(it->second);
    if (profile.mooncake_gid_index != kMooncakeGidAuto && it->second != profile.mooncake_gid_index)
      differ.push_back(dev + " has it at " + std::to_string(it->second));
  }
  std::string message;
  for (const auto& d : differ) message += (message.empty() ? "" : "; ") + d;
  for (const auto& d : none) message += (message.empty() ? "" : "; ") + d + " has none";
  if (profile.mooncake_gid_index == kMooncakeGidAuto) {
    if (none.empty() && seen.size() == 1) {
      report.ok("rdma-gid", "mooncake_gid_index: auto: the workers here get MC_GID_INDEX " + std::to_string(*seen.begin()) +
                                ", where every paired NIC carries its RoCE v2 IPv4 GID", found);
      return;
    }
    if (none.empty()) message = "the paired NICs carry it at different indexes: " + srt::join(found, ", ");
    report.warn("rdma-gid", "mooncake_gid_index: auto finds no one RoCE v2 IPv4 GID index: " + message +
                                "; workers here get no MC_GID_INDEX and Mooncake detects one itself",
                "give each paired NIC an IPv4 address at the same GID index (show_gids), or set mooncake_gid_index");
    return;
  }
  const std::string want = std::to_string(profile.mooncake_gid_index);
  if (!differ.empty() || !none.empty()) {
    report.warn("rdma-gid", "the RoCE v2 IPv4 GID is not at the profile's mooncake_gid_index " + want + ": " + message,
                "set mooncake_gid_index to the index show_gids lists as v2 with an IPv4 address (or auto; an "
                "InfiniBand fabric needs none of this)");
    return;
  }
  report.ok("rdma-gid", "every paired NIC carries its RoCE v2 IPv4 GID at index " + want + ", the profile's mooncake_gid_index",
            found);
}

std::vector<std::string> pairing_table(const NodeTopology& t) {
  std::vector<std::string> rows;
  char row[256];
  std::snprintf(row, sizeof row, "%-4s %-13s %-5s %-14s %-12s %s", "GPU", "BUS ID", "NUMA", "RDMA", "NETDEV", "CPUSET");
  rows.emplace_back(row);
  for (const Gpu& g : t.gpus) {
    const std::string rdma = g.nic ? dash(g.nic->rdma) + (g.nic_shared ? "*" : "") : "-";
    std::snprintf(row, sizeof row, "%-4d %-13s %-5d %-14s %-12s %s", g.index, g.bus_id.c_str(), g.numa, rdma.c_str(),
                  g.nic ? dash(g.nic->netdev).c_str() : "-", g.cpuset.c_str());
    rows.emplace_back(row);
  }
  for (const std::string& n : t.notes) rows.push_back("note: " + n);
  return rows;
}

}  // namespace

bool check_profile(Report& report, const std::string& path, Profile& profile) {
  if (path.empty()) {
    profile = default_profile();
    report.warn("profile", "no profile file: the plugin uses the built-in default profile",
                "install /etc/srt/cluster.yaml or name one with profile= in srt.conf");
    return true;
  }
  try {
    profile = load_profile_file(path);
  } catch (const Error& e) {
    std::string message = e.what();
    for (auto& c : message)
      if (c == '\n') c = ';';
    report.fail("profile", path + ": " + message, "fix the profile: every srt job on this node would fail");
    return false;
  }
  report.ok("profile", path + " parses (cluster " + dash(profile.cluster) + ", sha256 " + profile.digest + ")");
  return true;
}

bool check_topology(Report& report, const std::string& xml, const std::string& sysfs_root, const Profile& profile,
                    NodeTopology& topology) {
  TopologyOptions opts;
  opts.xml_path = xml;
  opts.sysfs_root = xml.empty() ? sysfs_root : "";  // a fixture describes another machine
  try {
    topology = load_topology(opts);
  } catch (const Error& e) {
    report.fail("topology", e.what(), "run 'srt-helper topology' on this node to see what hwloc finds");
    return false;
  }
  const auto paired = std::count_if(topology.gpus.begin(), topology.gpus.end(), [](const Gpu& g) { return bool(g.nic); });
  const std::string summary = topology.source + ": " + std::to_string(topology.gpus.size()) + " GPUs, " +
                              std::to_string(paired) + " with a NIC on their PCIe switch";
  if (topology.gpus.empty()) {
    report.fail("topology", summary, "check that the amdgpu driver is loaded and hwloc sees PCI devices (lstopo)");
    return false;
  }
  if (int(topology.gpus.size()) != profile.gpus_per_node) {
    report.warn("topology", summary + " but the profile says gpus_per_node " + std::to_string(profile.gpus_per_node),
                "fix gpus_per_node or find the missing GPUs (rocm-smi, dmesg)");
    return true;
  }
  report.ok("topology", summary, pairing_table(topology));
  return true;
}

void check_topology_cache(Report& report, const std::string& cache_dir, const std::string& boot_id_path) {
  if (cache_dir.empty()) {
    report.warn("topology-cache", "no topology_cache_dir: every srt step discovers this node's topology (tens of ms)",
                "set topology_cache_dir: /var/cache/srt in the profile");
    return;
  }
  const std::string refresh = "run 'srt-helper topology --refresh-cache --cache-dir " + cache_dir +
                              "' as root (the srt-topology-cache unit does at boot)";
  try {
    const std::string boot_id = read_boot_id(boot_id_path);
    const auto bytes = read_topology_cache(cache_dir, boot_id);
    if (!bytes) {
      report.warn("topology-cache", "none for this boot in " + cache_dir + ": every srt step discovers the topology "
                  "itself (job users cannot write the cache)", refresh);
      return;
    }
    const std::string path = topology_cache_path(cache_dir, boot_id);
    const NodeTopology cached = decode_topology_cache(*bytes, path);
    report.ok("topology-cache", path + ": " + std::to_string(cached.gpus.size()) + " GPUs, this boot's");
  } catch (const Error& e) {
    report.fail("topology-cache", e.what(), refresh);
  }
}

void check_profile_copy(Report& report, const std::string& cache_dir, const Profile& profile) {
  if (profile.digest.empty()) return;  // the built-in default: the node has it compiled in
  const std::string refresh = "run 'srt-helper topology --refresh-cache" +
                              (cache_dir == kDefaultCacheDir ? std::string() : " --cache-dir " + cache_dir) +
                              "' as root after every profile change (the srt-topology-cache unit does at boot)";
  try {
    if (read_profile_copy(cache_dir, profile.digest, SRT_VERSION))
      report.ok("profile-copy", cache_dir + "/" + profile_copy_name(profile.digest).substr(0, 20) + "...: " +
                                    profile.source.file + " as this srt-spank reads it");
    else
      report.warn("profile-copy", "no copy of " + profile.source.file + " in " + cache_dir + ": every srt step reads "
                  "the profile through srt_spank_impl.so (milliseconds, and yaml-cpp in slurmstepd)", refresh);
  } catch (const Error& e) {
    report.fail("profile-copy", e.what(), refresh);
  }
}

void check_partition_mode(Report& report, const NodeTopology& topology) {
  const std::string& mode = topology.partition_mode;
  if (mode == "SPX")
    report.ok("partition", "GPUs in SPX mode (one logical GPU per device)");
  else if (mode == "unknown")
    report.warn("partition", "compute partition mode unknown (no KFD topology readable, or a fixture)",
                "on a GPU node check /sys/class/kfd or 'amd-smi partition'; srt needs SPX");
  else
    report.fail("partition", "GPUs in " + mode + " mode: srt cannot tell which logical GPU sits where",
                "switch the GPUs to SPX (amd-smi set --compute-partition SPX)");
}

void check_ports(Report& report, const Profile& profile, const std::string& procfs_root) {
  const std::string range_file = procfs_root + "/sys/net/ipv4/ip_local_port_range";
  const std::string reserved_file = procfs_root + "/sys/net/ipv4/ip_local_reserved_ports";
  const PortSpan allocator{profile.port_range_begin, profile.port_range_end};
  PortSpan ephemeral;
  std::vector<PortSpan> reserved;
  try {
    const auto range_text = read_file(range_file);
    if (!range_text) {
      report.fail("ports", "cannot read " + range_file, "run the doctor on a Linux node with /proc mounted");
      return;
    }
    ephemeral = parse_ip_local_port_range(*range_text);
    reserved = parse_ip_local_reserved_ports(read_file(reserved_file).value_or(""));
  } catch (const Error& e) {
    report.fail("ports", e.what(), "");
    return;
  }
  const std::string what = "allocator range " + to_string(allocator) + ", kernel ephemeral range " +
                           to_string(ephemeral) + (reserved.empty() ? "" : ", reserved " + join(reserved));
  const PortRangeCheck range = check_port_range(allocator, ephemeral, reserved);
  const PortRangeCheck frontend = check_port_range({profile.frontend_port, profile.frontend_port}, ephemeral, reserved);
  if (!range.ok() || !frontend.ok()) {
    const std::string clash = join(range.ephemeral_clashes) + (frontend.ok() ? "" : (range.ok() ? "" : ",") +
                                                                                   std::to_string(profile.frontend_port));
    report.fail("ports", what + ": ports " + clash + " may be taken by any outgoing connection, so workers fail to bind at random",
                "move port_range_begin/port_range_end (and frontend_port) below " + std::to_string(ephemeral.first) +
                    ", or add them to net.ipv4.ip_local_reserved_ports");
    return;
  }
  if (!range.reserved_overlaps.empty()) {
    report.warn("ports", what + ": ports " + join(range.reserved_overlaps) + " are reserved on this node",
                "if they are reserved for another service, move the profile's range");
    return;
  }
  report.ok("ports", what + ": clear");
}

void check_rdma(Report& report, const Profile& profile, const NodeTopology& topology, const std::string& sysfs_root) {
  const bool auto_gid = profile.mooncake_gid_index == kMooncakeGidAuto;
  if (profile.mooncake_gid_index < 0 && !auto_gid) {
    report.ok("rdma", "not used (the profile sets no mooncake_gid_index: Mooncake over TCP)");
    return;
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY)
    report.fail("memlock", "locked-memory limit is " + std::to_string(limit.rlim_cur / 1024) +
                               " KiB, not unlimited: RDMA memory registration fails",
                "set 'memlock unlimited' for slurmd (LimitMEMLOCK=infinity in its unit) and "
                "PropagateResourceLimits, then restart slurmd");
  else
    report.ok("memlock", "locked-memory limit unlimited");

  std::set<std::string> devices;
  for (const Gpu& g : topology.gpus)
    if (g.nic && !g.nic->rdma.empty()) devices.insert(g.nic->rdma);
  if (devices.empty()) {
    report.fail("rdma", "no GPU has an RDMA device on its PCIe switch", "check the NIC driver (ibv_devices) or use TCP");
    return;
  }
  const std::string gid = std::to_string(profile.mooncake_gid_index);
  std::vector<std::string> bad;
  for (const std::string& dev : devices) {
    const std::string port = sysfs_root + "/class/infiniband/" + dev + "/ports/1";
    const auto state = read_file(port + "/state");
    const auto gid_value = read_file(port + "/gids/" + gid);
    if (!state)
      bad.push_back(dev + ": not in " + sysfs_root + "/class/infiniband");
    else if (state->find("ACTIVE") == std::string::npos)
      bad.push_back(dev + ": port 1 is " + helper::trim_end(*state));
    else if (!auto_gid && (!gid_value || helper::trim_end(*gid_value).find_first_not_of("0:") == std::string::npos))
      bad.push_back(dev + ": no GID at index " + gid);
  }
  // Which index each NIC has its RoCE v2 IPv4 GID at, and ATOM's own NIC pick: said whatever the
  // ports' state, so a wrong mooncake_gid_index comes with the right one.
  check_gid_index(report, profile, devices, sysfs_root);
  check_atom_nic_pick(report, topology, rdma_devices(sysfs_root));
  if (!bad.empty()) {
    std::string message;
    for (const std::string& b : bad) message += (message.empty() ? "" : "; ") + b;
    report.fail("rdma", message, "bring the ports up (ibv_devinfo) and check mooncake_gid_index (show_gids)");
    return;
  }
  report.ok("rdma", std::to_string(devices.size()) + " RDMA devices ACTIVE" + (auto_gid ? "" : " with GID index " + gid));
}

}  // namespace srt::doctor

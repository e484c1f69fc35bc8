// The node itself: the profile the plugin will read, GPUs and their NICs, the kernel's port
// ranges against the profile's allocator range, and for Mooncake over RDMA the limits and ports.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "srt/cli.hpp"
#include "checks.hpp"
#include "srt/error.hpp"
#include "srt/port_ranges.hpp"
#include "srt/join.hpp"
#include "srt/files.hpp"

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
  if (profile.mooncake_gid_index < 0) {
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
    else if (!gid_value || helper::trim_end(*gid_value).find_first_not_of("0:") == std::string::npos)
      bad.push_back(dev + ": no GID at index " + gid);
  }
  if (!bad.empty()) {
    std::string message;
    for (const std::string& b : bad) message += (message.empty() ? "" : "; ") + b;
    report.fail("rdma", message, "bring the ports up (ibv_devinfo) and check mooncake_gid_index (show_gids)");
    return;
  }
  report.ok("rdma", std::to_string(devices.size()) + " RDMA devices ACTIVE with GID index " + gid);
}

}  // namespace srt::doctor

// The data network as this node sees it (srt/data_network.hpp): the address every node plans for
// it, the interface that holds it and that link's speed; a faster interface that is up is a
// warning (KV bytes would go the slow way), an address that is not this node's is a failure.
#include <cstdio>
#include <string>

#include "checks.hpp"
#include "slurmapi/addresses.hpp"
#include "srt/data_network.hpp"
#include "srt/error.hpp"

namespace srt::doctor {
namespace {

std::string speed_text(long mbps) { return mbps > 0 ? std::to_string(mbps) + " Mb/s" : "speed unknown"; }

std::string one_line(const Error& e) {
  std::string text = e.what();
  for (auto& c : text)
    if (c == '\n') c = ';';
  return text;
}

}  // namespace

void check_data_network(Report& report, const std::string& node, bool known, const Profile& profile) {
  const std::string name = "data-network";
  if (node.empty()) {
    report.warn(name, "no node name to check", "run it in a step on the node (srun -w NODE) or pass --node NODE");
    return;
  }
  // Run by hand on a login node, the host name may be no compute node's: say what a job on a
  // node of that name would meet, without failing the host.
  auto problem = [&](const std::string& message, const std::string& fix) {
    if (known) report.fail(name, message, fix);
    else
      report.warn(name, message + " (if " + node + " is a compute node)",
                  fix + "; on a compute node, check it in a step: srun -w NODE srt-helper doctor");
  };
  const DataAddresses found = slurmapi::preview_addresses({node}, profile);
  if (!found.problems.empty()) {
    const Diagnostic& d = found.problems.front();
    problem(d.message, d.hint);
    return;
  }
  const std::string address = found.by_node.at(node);
  if (is_loopback_ipv4(address) && profile.node_addresses.count(node) == 0) {
    problem("node " + node + ": " + data_network_name(profile, node) + " resolves to " + address +
                ", a loopback address no other node can reach: every job of more than one node fails",
            "make the name resolve to the node's data-network address (Debian's /etc/hosts maps the host's own "
            "name to 127.0.1.1), or set data_network.name_pattern / node_addresses in the profile");
    return;
  }
  const std::vector<LocalInterface> interfaces = slurmapi::local_interfaces();
  const LocalInterface* carrier = nullptr;
  try {
    carrier = &own_data_interface(node, address, profile, interfaces);
  } catch (const Error& e) {
    problem(one_line(e), "every worker step on this node would fail with this message");
    return;
  }
  std::vector<std::string> details;
  char row[160];
  std::snprintf(row, sizeof row, "%-12s %-16s %-5s %s", "INTERFACE", "ADDRESS", "UP", "SPEED");
  details.emplace_back(row);
  for (const auto& i : interfaces) {
    std::snprintf(row, sizeof row, "%-12s %-16s %-5s %s%s", i.name.c_str(), i.address.c_str(), i.up ? "yes" : "no",
                  speed_text(i.speed_mbps).c_str(), &i == carrier ? "   <- data network" : "");
    details.emplace_back(row);
  }
  const LocalInterface* faster = faster_interface(*carrier, interfaces);
  const std::string found_text = "node " + node + ": data address " + address + " on " + carrier->name + " (" +
                                 speed_text(carrier->speed_mbps) + ")";
  if (faster) {
    report.add(Check{name, Status::warn,
                     found_text + ", but " + faster->name + " (" + faster->address + ") is up at " +
                         speed_text(faster->speed_mbps),
                     "KV bytes (Mooncake over TCP), the router and the DP master use " + carrier->name +
                         ": point data_network (name_pattern, cidr) or node_addresses at the faster network",
                     details});
    return;
  }
  report.ok(name, found_text, details);
}

}  // namespace srt::doctor

#include "srt/data_network.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

#include "srt/error.hpp"
#include "srt/join.hpp"

namespace srt {

namespace {

std::optional<unsigned long> ipv4_value(const std::string& text) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return std::nullopt;
  return static_cast<unsigned long>(ntohl(a.s_addr));
}

unsigned long mask_of(int prefix) { return prefix == 0 ? 0UL : (0xffffffffUL << (32 - prefix)) & 0xffffffffUL; }

Diagnostic node_problem(const std::string& node, std::string message, std::string hint) {
  Diagnostic d;
  d.key_path = "data_network";
  d.message = "node " + node + ": " + std::move(message);
  d.hint = std::move(hint);
  return d;
}

const char* const kFixHint =
    "make the name resolve to the node's data-network address on every node (DNS or /etc/hosts), "
    "set the cluster profile's data_network.name_pattern to the names that do, or list the node "
    "under node_addresses";

}  // namespace

bool Ipv4Network::contains(const std::string& address) const {
  const auto v = ipv4_value(address);
  return v && (*v & mask_of(prefix)) == base;
}

std::optional<Ipv4Network> parse_ipv4_network(const std::string& text, std::string* why) {
  auto no = [&](std::string reason) -> std::optional<Ipv4Network> {
    if (why) *why = "'" + text + "' is not an IPv4 network (A.B.C.D/N): " + std::move(reason);
    return std::nullopt;
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return no("no /N prefix length");
  const auto base = ipv4_value(text.substr(0, slash));
  if (!base) return no("'" + text.substr(0, slash) + "' is no IPv4 address");
  int prefix = -1;
  const char* first = text.data() + slash + 1;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, prefix);
  if (ec != std::errc() || end != last || first == last || prefix < 0 || prefix > 32)
    return no("the prefix length must be a number from 0 to 32");
  Ipv4Network n;
  n.prefix = prefix;
  n.base = *base & mask_of(prefix);
  if (n.base != *base) return no("it has host bits set (did you mean the network's first address?)");
  return n;
}

bool is_ipv4_address(const std::string& text) { return ipv4_value(text).has_value(); }

bool is_ip_address(const std::string& text) {
  in6_addr a6{};
  return is_ipv4_address(text) || inet_pton(AF_INET6, text.c_str(), &a6) == 1;
}

std::string listen_host(const Profile& profile, const std::string& node_address) {
  return profile.listen_address == "data_network" && is_ip_address(node_address) ? node_address : "0.0.0.0";
}

bool is_loopback_ipv4(const std::string& address) {
  const auto v = ipv4_value(address);
  return v && (*v >> 24) == 127;
}

std::string data_network_name(const Profile& profile, const std::string& node) {
  std::string name = profile.data_network_name_pattern.empty() ? "{node}" : profile.data_network_name_pattern;
  for (std::size_t at = name.find("{node}"); at != std::string::npos; at = name.find("{node}", at + node.size()))
    name.replace(at, 6, node);
  return name;
}

DataAddresses find_data_addresses(const std::vector<std::string>& nodes, const Profile& profile,
                                  const NameResolver& resolve) {
  DataAddresses out;
  std::optional<Ipv4Network> cidr;
  if (!profile.data_network_cidr.empty()) cidr = parse_ipv4_network(profile.data_network_cidr);
  const std::string cidr_words = "data_network.cidr " + profile.data_network_cidr;
  for (const auto& node : nodes) {
    if (auto fixed = profile.node_addresses.find(node); fixed != profile.node_addresses.end()) {
      // An admin's explicit entry: a loopback address is theirs to choose (one-host labs).
      if (!is_ipv4_address(fixed->second))
        out.problems.push_back(node_problem(node, "node_addresses gives '" + fixed->second + "', which is no IPv4 address",
                                            "write the node's data-network IPv4 address there"));
      else if (cidr && !cidr->contains(fixed->second))
        out.problems.push_back(node_problem(node, "node_addresses gives " + fixed->second + ", outside " + cidr_words,
                                            "correct the entry, or the CIDR"));
      else
        out.by_node[node] = fixed->second;
      continue;
    }
    const std::string name = data_network_name(profile, node);
    const std::string named = name == node ? "its name" : "its data-network name '" + name + "'";
    const std::optional<std::vector<std::string>> answer = resolve(name);
    if (!answer) {
      out.problems.push_back(node_problem(
          node, named + " got no answer from the name service before the deadline (" +
                    std::to_string(kNameResolveSeconds) + " s for all of the job's names together)",
          "make the name service answer on every node (/etc/resolv.conf, nscd or systemd-resolved, /etc/hosts), "
          "or list the node under node_addresses in the cluster profile, which needs no lookup"));
      continue;
    }
    const std::vector<std::string>& found = *answer;
    if (found.empty()) {
      out.problems.push_back(node_problem(node, named + " does not resolve to an IPv4 address", kFixHint));
      continue;
    }
    std::vector<std::string> usable;
    for (const auto& a : found)
      if (!cidr || cidr->contains(a)) usable.push_back(a);
    if (usable.empty()) {
      out.problems.push_back(node_problem(node, named + " resolves to " + join(found, ", ") + ", none inside " + cidr_words +
                                                    " (the management network?)", kFixHint));
      continue;
    }
    // Debian's /etc/hosts maps a host's own name to 127.0.1.1: the node would advertise an
    // address no other node can reach (and plan differently from the others).
    if (nodes.size() > 1 && is_loopback_ipv4(usable.front())) {
      out.problems.push_back(node_problem(node, named + " resolves to " + usable.front() +
                                                    ", a loopback address other nodes cannot reach "
                                                    "(Debian's /etc/hosts line for the host's own name?)",
                                          kFixHint));
      continue;
    }
    out.by_node[node] = usable.front();
  }
  return out;
}

std::map<std::string, std::string> data_addresses(const std::vector<std::string>& nodes, const Profile& profile,
                                                  const NameResolver& resolve) {
  DataAddresses found = find_data_addresses(nodes, profile, resolve);
  if (!found.problems.empty()) throw Error(std::move(found.problems));
  return std::move(found.by_node);
}

const LocalInterface& own_data_interface(const std::string& node, const std::string& planned_address,
                                         const Profile& profile, const std::vector<LocalInterface>& interfaces) {
  std::vector<std::string> have;
  for (const auto& i : interfaces) have.push_back(i.name + " " + i.address);
  const std::string listed = have.empty() ? "none with an IPv4 address" : join(have, ", ");
  const auto it = std::find_if(interfaces.begin(), interfaces.end(),
                               [&](const LocalInterface& i) { return i.address == planned_address; });
  if (it == interfaces.end())
    throw Error(node_problem(node, "the address every node plans for it, " + planned_address +
                                       ", is on none of its interfaces (" + listed + ")",
                             "the name service gives this node another node's (or a stale) address: correct it, "
                             "or data_network/node_addresses in the cluster profile"));
  if (!profile.network_interface.empty() && it->name != profile.network_interface) {
    Diagnostic d = node_problem(node, "its data address " + planned_address + " is on " + it->name +
                                          ", not on the profile's network_interface " + profile.network_interface +
                                          " (" + listed + ")",
                                "make data_network (or node_addresses) and network_interface name the same network");
    d.key_path = "network_interface";
    throw Error(std::move(d));
  }
  return *it;
}

const LocalInterface* faster_interface(const LocalInterface& carrier, const std::vector<LocalInterface>& interfaces) {
  if (carrier.speed_mbps <= 0) return nullptr;
  const LocalInterface* faster = nullptr;
  for (const auto& i : interfaces)
    if (i.up && !is_loopback_ipv4(i.address) && i.speed_mbps > carrier.speed_mbps &&
        (!faster || i.speed_mbps > faster->speed_mbps))
      faster = &i;
  return faster;
}

}  // namespace srt

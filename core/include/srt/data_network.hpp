// Which address every node is reached at on the data network: the one that carries the KV
// bytes (with Mooncake over TCP, ATOM_HOST_IP decides the NIC, and ATOM forces TCP-only), the
// router's calls to the workers and the DP master (docs/design.md "Addresses and the data network").
//
// No node asks another for its address: every node derives every address from the same inputs,
// the job's node names and the cluster profile, through the site's own name service:
//   1. node_addresses[node] when the profile lists the node (a fixed map);
//   2. else the IPv4 addresses of data_network.name_pattern with {node} replaced (default
//      "{node}": the node name itself; "{node}-data" for a site whose data rail has its own
//      names), the first one inside data_network.cidr when that is set.
// A name that does not resolve, an address outside the CIDR, or a loopback address in a job of
// more than one node is an error naming the node: never a silent fallback to the host name, which
// is how KV traffic ends up on the management network. On its own node, the address must be on
// one of the node's interfaces (and be network_interface's, when the profile names one).
// Pure: the caller resolves names (slurmapi/addresses.cpp) and lists interfaces.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "srt/profile.hpp"

namespace srt {

// An IPv4 network "A.B.C.D/N"; parsed with inet_pton.
struct Ipv4Network {
  unsigned long base = 0;  // host order, masked
  int prefix = 0;
  bool contains(const std::string& address) const;
};
// nullopt (and why in *why) when `text` is no IPv4 network.
std::optional<Ipv4Network> parse_ipv4_network(const std::string& text, std::string* why = nullptr);
bool is_ipv4_address(const std::string& text);
bool is_loopback_ipv4(const std::string& address);
// An IPv4 or IPv6 literal (inet_pton), which a server can bind as it is.
bool is_ip_address(const std::string& text);

// The host a listener binds on a node known to the Plan as `node_address` (PlanNode::address):
// that address when it is an IP literal and the profile's listen_address is data_network, else
// every interface ("0.0.0.0": a node known only by its name, or listen_address: any).
std::string listen_host(const Profile& profile, const std::string& node_address);

// The name data_network.name_pattern gives `node`.
std::string data_network_name(const Profile& profile, const std::string& node);

// How long a node may wait for all of its job's names together (slurmapi/addresses.cpp looks
// them up at once): glibc's resolver gives one unreachable name server 5 s and tries twice
// (resolv.conf(5) "timeout", "attempts"), so a name that has no answer in 10 s has none coming.
inline constexpr int kNameResolveSeconds = 10;

// name -> its IPv4 addresses in the resolver's order (empty: it does not resolve; nullopt: the
// name service gave no answer before the deadline).
using NameResolver = std::function<std::optional<std::vector<std::string>>(const std::string& name)>;

struct DataAddresses {
  std::map<std::string, std::string> by_node;  // node -> address (only nodes that have one)
  std::vector<Diagnostic> problems;            // one per node without a usable address
};
// Every node's data address by the rules above; nodes without one are in `problems`.
DataAddresses find_data_addresses(const std::vector<std::string>& nodes, const Profile& profile,
                                  const NameResolver& resolve);
// The same, throwing srt::Error with every problem when any node has no usable address.
std::map<std::string, std::string> data_addresses(const std::vector<std::string>& nodes, const Profile& profile,
                                                  const NameResolver& resolve);

struct LocalInterface {
  std::string name;     // eth0
  std::string address;  // IPv4
  bool up = true;
  long speed_mbps = -1;  // /sys/class/net/IF/speed; -1 unknown (virtual links)
};
// On `node` itself: the interface its planned data address is on (what ATOM_HOST_IP must be),
// checked against network_interface when the profile names one. Throws srt::Error naming the
// node, the address and the interfaces it has.
const LocalInterface& own_data_interface(const std::string& node, const std::string& planned_address,
                                         const Profile& profile, const std::vector<LocalInterface>& interfaces);

// The fastest interface that is up, not loopback and faster than `carrier` (both speeds known),
// or nullptr: doctor's warning that KV bytes take the slow way.
const LocalInterface* faster_interface(const LocalInterface& carrier, const std::vector<LocalInterface>& interfaces);

}  // namespace srt

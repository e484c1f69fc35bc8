// How nodes find each other on the data network (srt/data_network.hpp has the rules): the
// names are resolved here, by this host's resolver (DNS or /etc/hosts, which Slurm sites keep
// identical on every node), and this host's interfaces are listed here.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "srt/data_network.hpp"
#include "srt/profile.hpp"

namespace srt::slurmapi {

// Every IPv4 address `name` resolves to, in the resolver's order, without repeats.
std::vector<std::string> resolve_ipv4(const std::string& name);

// A name's lookup (resolve_ipv4, or a test's).
using Lookup = std::function<std::vector<std::string>(const std::string& name)>;

// Every node's data address. Throws srt::Error naming each node that has none (a name that
// does not resolve, an address outside data_network.cidr, a loopback address, a name without an
// answer within `budget`): what every slurmstepd and the launcher plan with. The names are looked
// up at once (16 at a time) under that one deadline: getaddrinfo has none, and a dead name server
// held every step of the job in user_init, one name after another.
std::map<std::string, std::string> resolve_addresses(
    const std::vector<std::string>& nodes, const Profile& profile, const Lookup& lookup = resolve_ipv4,
    std::chrono::milliseconds budget = std::chrono::seconds(kNameResolveSeconds));
// For a preview away from the cluster (srt-helper plan, launch --dry-run): the addresses found
// and the problems, which the caller prints; a node without an address is planned by its name.
// Under the same deadline.
DataAddresses preview_addresses(const std::vector<std::string>& nodes, const Profile& profile);

// This host's IPv4 interfaces (getifaddrs), with whether each is up and its link speed
// (/sys/class/net/IF/speed; -1 where the link has none, as virtual ones).
std::vector<LocalInterface> local_interfaces();

}  // namespace srt::slurmapi

// How nodes find each other: the profile's fixed map, else the name as the node's resolver sees
// it (DNS or /etc/hosts, which Slurm sites keep identical on every node), else the name itself.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "srt/profile.hpp"

namespace srt::slurmapi {

std::map<std::string, std::string> resolve_addresses(const std::vector<std::string>& nodes,
                                                     const Profile& profile);

// This node's IPv4 address on `interface` ("" when the interface has none or does not exist).
std::string interface_address(const std::string& interface);

}  // namespace srt::slurmapi

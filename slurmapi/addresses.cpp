#include "addresses.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <fstream>
#include <memory>

namespace srt::slurmapi {

std::vector<std::string> resolve_ipv4(const std::string& name) {
  std::vector<std::string> out;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (name.empty() || getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0 || !res) return out;
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(res, freeaddrinfo);
  for (const addrinfo* a = res; a; a = a->ai_next) {
    char buf[INET_ADDRSTRLEN] = {};
    const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
    if (!inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) continue;
    if (std::find(out.begin(), out.end(), buf) == out.end()) out.emplace_back(buf);
  }
  return out;
}

std::map<std::string, std::string> resolve_addresses(const std::vector<std::string>& nodes,
                                                     const Profile& profile) {
  return data_addresses(nodes, profile, resolve_ipv4);
}

DataAddresses preview_addresses(const std::vector<std::string>& nodes, const Profile& profile) {
  return find_data_addresses(nodes, profile, resolve_ipv4);
}

namespace {

long link_speed_mbps(const std::string& interface) {
  // Virtual links (veth, bridges, lo) answer -1 or EINVAL: unknown.
  std::ifstream in("/sys/class/net/" + interface + "/speed");
  long speed = -1;
  if (!(in >> speed) || speed <= 0) return -1;
  return speed;
}

}  // namespace

std::vector<LocalInterface> local_interfaces() {
  std::vector<LocalInterface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !a->ifa_name) continue;
    char buf[INET_ADDRSTRLEN] = {};
    const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (!inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) continue;
    LocalInterface i;
    i.name = a->ifa_name;
    i.address = buf;
    i.up = (a->ifa_flags & IFF_UP) && (a->ifa_flags & IFF_RUNNING);
    i.speed_mbps = link_speed_mbps(i.name);
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace srt::slurmapi

#include "addresses.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>

namespace srt::slurmapi {

namespace {

std::string resolve_ipv4(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0 || !res) return "";
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(res, freeaddrinfo);
  char buf[INET_ADDRSTRLEN] = {};
  const auto* sin = reinterpret_cast<const sockaddr_in*>(res->ai_addr);
  if (!inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) return "";
  return buf;
}

}  // namespace

std::map<std::string, std::string> resolve_addresses(const std::vector<std::string>& nodes,
                                                     const Profile& profile) {
  std::map<std::string, std::string> out;
  for (const auto& n : nodes) {
    auto fixed = profile.node_addresses.find(n);
    if (fixed != profile.node_addresses.end()) { out[n] = fixed->second; continue; }
    const std::string ip = resolve_ipv4(n);
    out[n] = ip.empty() ? n : ip;
  }
  return out;
}

std::string interface_address(const std::string& interface) {
  if (interface.empty()) return "";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || interface != a->ifa_name) continue;
    char buf[INET_ADDRSTRLEN] = {};
    const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) return buf;
  }
  return "";
}

}  // namespace srt::slurmapi

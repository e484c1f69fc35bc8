#include "addresses.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

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

namespace {

// What the lookup threads share with the caller. The caller leaves at the deadline; a thread stuck
// in getaddrinfo (which has no timeout of its own) keeps this alive until its lookup returns and
// then takes no other name.
struct Lookups {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> names;
  std::size_t next = 0;
  std::map<std::string, std::vector<std::string>> answers;
  bool abandoned = false;
};

// A few threads at once: a job of hundreds of nodes need not start hundreds of threads in every
// slurmstepd, and 16 lookups in flight hide one slow answer among them.
constexpr std::size_t kLookupThreads = 16;

void look_up_names(const std::shared_ptr<Lookups>& shared, const Lookup& lookup) {
  for (;;) {
    std::string name;
    {
      std::lock_guard<std::mutex> hold(shared->mutex);
      if (shared->abandoned || shared->next == shared->names.size()) return;
      name = shared->names[shared->next++];
    }
    std::vector<std::string> found;
    try {
      found = lookup(name);
    } catch (...) {  // a name that cannot be looked up does not resolve
    }
    {
      std::lock_guard<std::mutex> hold(shared->mutex);
      shared->answers[name] = std::move(found);
    }
    shared->changed.notify_all();
  }
}

// Every name's answer that came within `budget`, all looked up at once: a name missing from the
// result had none in time.
std::map<std::string, std::vector<std::string>> look_up_all(std::vector<std::string> names, const Lookup& lookup,
                                                            std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  auto shared = std::make_shared<Lookups>();
  shared->names = std::move(names);
  const std::size_t wanted = shared->names.size();
  for (std::size_t i = 0; i < std::min(wanted, kLookupThreads); ++i) std::thread(look_up_names, shared, lookup).detach();
  std::unique_lock<std::mutex> hold(shared->mutex);
  shared->changed.wait_until(hold, deadline, [&] { return shared->answers.size() == wanted; });
  shared->abandoned = true;
  return shared->answers;
}

// The names `nodes` need looked up: those node_addresses does not list.
NameResolver bounded_resolver(const std::vector<std::string>& nodes, const Profile& profile, const Lookup& lookup,
                              std::chrono::milliseconds budget) {
  std::vector<std::string> names;
  for (const auto& node : nodes)
    if (profile.node_addresses.count(node) == 0) names.push_back(data_network_name(profile, node));
  auto answers = std::make_shared<const std::map<std::string, std::vector<std::string>>>(
      look_up_all(std::move(names), lookup, budget));
  return [answers](const std::string& name) -> std::optional<std::vector<std::string>> {
    const auto it = answers->find(name);
    if (it == answers->end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

std::map<std::string, std::string> resolve_addresses(const std::vector<std::string>& nodes, const Profile& profile,
                                                     const Lookup& lookup, std::chrono::milliseconds budget) {
  return data_addresses(nodes, profile, bounded_resolver(nodes, profile, lookup, budget));
}

DataAddresses preview_addresses(const std::vector<std::string>& nodes, const Profile& profile) {
  return find_data_addresses(nodes, profile,
                             bounded_resolver(nodes, profile, resolve_ipv4, std::chrono::seconds(kNameResolveSeconds)));
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

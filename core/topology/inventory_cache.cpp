// The per-boot topology cache holds the inventory hwloc's walk derived (GPUs, paired NICs, NUMA
// nodes, cpusets), not hwloc's XML: reading it back is a small JSON parse instead of hwloc
// loading a whole XML topology again, which was most of what each slurmstepd of a recipe job
// spent on the node (docs/performance.md). ROCm SMI and the partition mode are never cached: they
// are asked again on every load, as before.
//
// The file lies in a directory only root (or the cache's owner) can write (cache.cpp), but a
// bad or foreign file must still end as srt::Error, never a crash or a wrong binding: every
// field is checked for type and range, and the caller rediscovers on any error.
#include <cstdio>
#include <string>
#include <string_view>

#include "srt/error.hpp"
#include "srt/topology.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {
namespace {

constexpr const char* kFormat = "srt-spank topology cache";
constexpr long long kVersion = 1;
constexpr long long kMaxDevices = 1024;  // far beyond any node; bounds the loops below
constexpr long long kMaxNuma = 4096;

Json nic_json(const Nic& n) {
  return Json{{"rdma", n.rdma}, {"netdev", n.netdev}, {"bus_id", n.bus_id}, {"numa", n.numa}};
}

[[noreturn]] void bad(const std::string& source, const std::string& what) {
  fail(source + ": not a topology cache srt-spank wrote (" + what + ")",
       "it is rediscovered and rewritten; if this repeats, remove the file");
}

std::string text_field(const Json& obj, const char* key, const std::string& source, const std::string& where) {
  auto v = json_field::text(obj, key);
  if (!v) bad(source, where + "." + key + " is not a string");
  return *v;
}

int numa_field(const Json& obj, const std::string& source, const std::string& where) {
  auto v = json_field::integer(obj, "numa", -1, kMaxNuma);
  if (!v) bad(source, where + ".numa is not an integer in [-1, " + std::to_string(kMaxNuma) + "]");
  return int(*v);
}

Nic nic_from(const Json& j, const std::string& source, const std::string& where) {
  if (!j.is_object()) bad(source, where + " is not an object");
  Nic n;
  n.rdma = text_field(j, "rdma", source, where);
  n.netdev = text_field(j, "netdev", source, where);
  n.bus_id = text_field(j, "bus_id", source, where);
  n.numa = numa_field(j, source, where);
  return n;
}

const Json& array_field(const Json& obj, const char* key, const std::string& source) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) bad(source, std::string(key) + " is not an array");
  if (it->size() > std::size_t(kMaxDevices)) bad(source, std::string(key) + " has more than 1024 entries");
  return *it;
}

}  // namespace

std::string encode_topology_cache(const NodeTopology& topo) {
  Json gpus = Json::array();
  for (const Gpu& g : topo.gpus) {
    Json j{{"index", g.index}, {"bus_id", g.bus_id}, {"device_id", g.device_id}, {"numa", g.numa},
           {"cpuset", g.cpuset}, {"nic", g.nic ? nic_json(*g.nic) : Json(nullptr)}, {"nic_shared", g.nic_shared}};
    gpus.push_back(std::move(j));
  }
  Json frontend = Json::array();
  for (const Nic& n : topo.frontend_nics) frontend.push_back(nic_json(n));
  return Json{{"format", kFormat}, {"version", kVersion}, {"gpus", gpus}, {"frontend_nics", frontend}}.dump() + "\n";
}

NodeTopology decode_topology_cache(std::string_view bytes, const std::string& source) {
  const Json root = parse_untrusted_json(bytes);
  if (root.is_discarded() || !root.is_object()) bad(source, "not a JSON object");
  if (json_field::text(root, "format") != std::string(kFormat)) bad(source, "no format \"" + std::string(kFormat) + "\"");
  const auto version = json_field::integer(root, "version", 0, 1LL << 30);
  if (version != kVersion)
    bad(source, "version " + (version ? std::to_string(*version) : std::string("missing")) + ", this srt-spank reads " +
                    std::to_string(kVersion));
  NodeTopology t;
  const Json& gpus = array_field(root, "gpus", source);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const Json& j = gpus[i];
    const std::string where = "gpus[" + std::to_string(i) + "]";
    if (!j.is_object()) bad(source, where + " is not an object");
    Gpu g;
    // PCI bus order, numbered from 0 without gaps: bind_worker indexes the list by it.
    if (json_field::integer(j, "index", 0, kMaxDevices) != static_cast<long long>(i))
      bad(source, where + ".index is not " + std::to_string(i));
    g.index = int(i);
    g.bus_id = text_field(j, "bus_id", source, where);
    const auto device = json_field::integer(j, "device_id", 0, 0xffff);
    if (!device) bad(source, where + ".device_id is not a PCI device id");
    g.device_id = unsigned(*device);
    g.numa = numa_field(j, source, where);
    g.cpuset = text_field(j, "cpuset", source, where);
    const auto nic = j.find("nic");
    if (nic == j.end()) bad(source, where + ".nic is missing");
    if (!nic->is_null()) g.nic = nic_from(*nic, source, where + ".nic");
    const auto shared = json_field::boolean(j, "nic_shared");
    if (!shared) bad(source, where + ".nic_shared is not a boolean");
    g.nic_shared = *shared;
    t.gpus.push_back(std::move(g));
  }
  const Json& frontend = array_field(root, "frontend_nics", source);
  for (std::size_t i = 0; i < frontend.size(); ++i)
    t.frontend_nics.push_back(nic_from(frontend[i], source, "frontend_nics[" + std::to_string(i) + "]"));
  t.source = source;
  return t;
}

}  // namespace srt

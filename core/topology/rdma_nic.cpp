#include "srt/rdma_nic.hpp"

#include <algorithm>
#include <cctype>

namespace srt {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// ::ffff:a.b.c.d as sysfs writes it: eight groups of four hex digits, the first five 0000, the
// sixth ffff.
bool is_ipv4_mapped(const std::string& gid) {
  const std::string g = trimmed(gid);
  static const std::string prefix = "0000:0000:0000:0000:0000:ffff:";
  if (g.size() != prefix.size() + 9 || g.compare(0, prefix.size(), prefix) != 0 || g[prefix.size() + 4] != ':') return false;
  return std::all_of(g.begin() + std::ptrdiff_t(prefix.size()), g.end(),
                     [](char c) { return c == ':' || std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::optional<int> roce_v2_ipv4_gid_index(const std::vector<GidEntry>& gids) {
  std::optional<int> best;
  for (const GidEntry& e : gids)
    if (trimmed(e.type) == "RoCE v2" && is_ipv4_mapped(e.gid) && (!best || e.index < *best)) best = e.index;
  return best;
}

std::string atom_auto_nic(int entry, const std::set<std::string>& devices) {
  if (entry < 0) return {};
  const std::string n = std::to_string(entry);
  if (devices.count("rdma" + n)) return "rdma" + n;
  if (devices.count("ionic_" + n)) return "ionic_" + n;
  return "rdma" + n;
}

}  // namespace srt

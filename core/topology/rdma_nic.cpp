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

AtomNicPick newest_atom_nic_pick() { return AtomNicPick{}; }

std::optional<AtomNicPick> parse_atom_nic_pick(const std::string& text) {
  AtomNicPick p;
  p.families.clear();
  if (text == "unknown") {
    p.kind = AtomNicPick::Kind::unknown;
    return p;
  }
  if (text == "every-nic") {
    p.kind = AtomNicPick::Kind::every_nic;
    return p;
  }
  const auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string index = text.substr(colon + 1);
  if (index != "physical" && index != "visible") return std::nullopt;
  p.kind = AtomNicPick::Kind::own_nic;
  p.physical = index == "physical";
  for (std::size_t at = 0; at <= colon;) {
    const std::size_t end = std::min(text.find('+', at), colon);
    const std::string family = text.substr(at, end - at);
    if (family != "rdma" && family != "ionic_") return std::nullopt;
    if (std::find(p.families.begin(), p.families.end(), family) != p.families.end()) return std::nullopt;
    p.families.push_back(family);
    at = end + 1;
  }
  return p;
}

std::string to_string(const AtomNicPick& pick) {
  if (pick.kind == AtomNicPick::Kind::every_nic) return "every-nic";
  if (pick.kind == AtomNicPick::Kind::unknown) return "unknown";
  std::string out;
  for (const std::string& f : pick.families) out += (out.empty() ? "" : "+") + f;
  return out + (pick.physical ? ":physical" : ":visible");
}

std::string atom_auto_nic(const AtomNicPick& pick, int rank, int entry, const std::set<std::string>& devices) {
  if (pick.kind != AtomNicPick::Kind::own_nic || pick.families.empty()) return {};
  const int n = pick.physical ? entry : rank;
  if (n < 0) return {};
  for (const std::string& family : pick.families)
    if (devices.count(family + std::to_string(n))) return family + std::to_string(n);
  return pick.families.front() + std::to_string(n);
}

std::vector<AtomNicGuess> atom_nic_guesses(const WorkerBinding& b) {
  std::vector<AtomNicGuess> out;
  for (std::size_t r = 0; r < b.gpus.size(); ++r) {
    AtomNicGuess g;
    g.rank = int(r);
    g.gpu = b.gpus[r];
    // Without the node's value (a binding made outside a step), the node index is the entry.
    g.entry = r < b.visible_entries.size() ? b.visible_entries[r] : b.gpus[r];
    g.guess = atom_auto_nic(b.atom_nic_pick, g.rank, g.entry, b.rdma_devices);
    g.paired = r < b.ib_devices.size() ? b.ib_devices[r] : "";
    out.push_back(std::move(g));
  }
  return out;
}

bool atom_guesses_follow_pairing(const std::vector<AtomNicGuess>& guesses) {
  return !guesses.empty() && std::all_of(guesses.begin(), guesses.end(), [](const AtomNicGuess& g) { return g.hit(); });
}

std::string atom_guess_misses(const std::vector<AtomNicGuess>& guesses) {
  std::string out;
  for (const AtomNicGuess& g : guesses) {
    if (g.hit()) continue;
    out += (out.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(g.gpu) + " " + g.guess +
           (g.paired.empty() ? " (paired with no NIC)" : " (paired " + g.paired + ")");
  }
  return out;
}

}  // namespace srt

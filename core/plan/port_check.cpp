#include "srt/port_check.hpp"

#include <set>
#include <utility>

namespace srt {

std::vector<PortUse> planned_ports(const Plan& plan) {
  std::vector<PortUse> out;
  std::set<std::pair<std::string, int>> seen;
  for (const auto& p : plan.processes)
    p.ports.each([&](const char* name, const std::vector<int>& ports) {
      for (int port : ports)
        if (seen.insert({p.node, port}).second) out.push_back({p.node, port, p.name + " " + name});
    });
  return out;
}

std::string port_spec(const PortUse& use) { return use.node + ":" + std::to_string(use.port) + ":" + use.what; }

std::optional<PortUse> parse_port_spec(const std::string& spec) {
  // Node names hold no ':' (Slurm's hostlist syntax has none); WHAT is the rest and may.
  const auto a = spec.find(':');
  if (a == std::string::npos || a == 0) return std::nullopt;
  const auto b = spec.find(':', a + 1);
  if (b == std::string::npos || b == a + 1 || b + 1 >= spec.size()) return std::nullopt;
  const std::string digits = spec.substr(a + 1, b - a - 1);
  if (digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int port = std::stoi(digits);
  if (port < 1 || port > 65535) return std::nullopt;
  return PortUse{spec.substr(0, a), port, spec.substr(b + 1)};
}

}  // namespace srt

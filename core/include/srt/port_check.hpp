// Every port the Plan has a process bind, per node, and the "NODE:PORT:WHAT" words the launcher
// hands `srt-helper port-check` (docs/design.md "Ports"). Before the first worker starts, each node
// binds each of its ports once: a port another job or program holds ends the job there, naming
// node, port and the process that wanted it, instead of a worker dying later of EADDRINUSE (or,
// worse, a health probe finding another job's worker on that port).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "srt/plan.hpp"

namespace srt {

struct PortUse {
  std::string node;
  int port = 0;
  std::string what;  // "prefill:0 http", "router metrics"
};

// In Plan order (processes, then each one's ports by name); a port is listed once per node.
std::vector<PortUse> planned_ports(const Plan& plan);

std::string port_spec(const PortUse& use);                     // "node1:20001:prefill:0 http"
// nullopt when `spec` is not NODE:PORT:WHAT with PORT in 1..65535 and NODE, WHAT non-empty.
std::optional<PortUse> parse_port_spec(const std::string& spec);

}  // namespace srt

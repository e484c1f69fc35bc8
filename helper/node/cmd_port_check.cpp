// srt-helper port-check NODE:PORT:WHAT...: run by the launcher as one task per node before the
// first worker starts (docs/design.md "Ports"). Each task binds, and listens on, every port the
// Plan gives its own node, then lets go: a port someone holds is reported with node, port and
// the process that wanted it. Exit 0 all free, 1 one or more in use, 2 usage.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/port_check.hpp"

namespace srt::helper {
namespace {

// "" when the port can be bound as a worker binds it (all addresses, SO_REUSEADDR as ZeroMQ,
// uvicorn and Mooncake set it), else why not. SO_REUSEADDR so that a port left in TIME_WAIT by
// the job before is free, as it is to the worker; a listener anywhere on the port still refuses.
std::string try_bind(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("socket: ") + std::strerror(errno);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string why;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 1) != 0)
    why = std::strerror(errno);
  ::close(fd);
  return why;
}

}  // namespace

void add_port_check(CLI::App& app) {
  struct Args {
    std::string node;
    std::vector<std::string> specs;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("port-check", "bind each planned port of this node once (the launcher runs it before any worker)");
  cmd->add_option("--node", a->node, "this node's name (default: $SLURMD_NODENAME, then the host name)");
  cmd->add_option("SPEC", a->specs, "NODE:PORT:WHAT, one per planned port (other nodes' are skipped)")->required();
  cmd->callback([a] {
    std::vector<PortUse> mine;
    const std::string node = this_node_name(a->node);
    for (const auto& s : a->specs) {
      const auto use = parse_port_spec(s);
      if (!use) {
        std::fprintf(stderr, "srt-helper port-check: '%s' is not NODE:PORT:WHAT (PORT 1-65535)\n", s.c_str());
        exit_code = 2;
        return;
      }
      if (use->node == node) mine.push_back(*use);
    }
    int busy = 0;
    for (const auto& u : mine) {
      const std::string why = try_bind(u.port);
      if (why.empty()) continue;
      ++busy;
      std::printf("port-check: node %s: port %d (for %s) cannot be bound: %s; another job or program holds it\n",
                  node.c_str(), u.port, u.what.c_str(), why.c_str());
    }
    std::printf("port-check: node %s: %zu of %zu planned port(s) free\n", node.c_str(), mine.size() - std::size_t(busy),
                mine.size());
    exit_code = busy == 0 ? 0 : 1;
  });
}

}  // namespace srt::helper

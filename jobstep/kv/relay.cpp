#include "relay.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "event_batch.hpp"
#include "srt/error.hpp"

namespace srt::kv {

namespace {

// libzmq unlinks an existing ipc file before it binds, so a second relay on the same ingress
// would silently steal the ranks of the first. Refuse when someone still listens there; remove
// the file only when it is a dead socket left by a killed relay.
void claim_ipc_path(const std::string& path, const std::string& endpoint) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISSOCK(st.st_mode))
    fail("kv-relay: cannot bind the ingress " + endpoint + ": " + path + " exists and is not a socket",
         "remove it or choose another ingress path");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path))
    fail("kv-relay: ingress path " + path + " is longer than a Unix socket path may be",
         "use a shorter TMPDIR");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  const bool alive = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  if (alive)
    fail("kv-relay: cannot bind the ingress " + endpoint + ": Address already in use (another process "
         "listens on " + path + ")",
         "another kv-relay of this job or a leftover one holds it; stop it (ss -xlp | grep " + path + ")");
  ::unlink(path.c_str());
}

void bind_or_fail(zmq::socket_t& socket, const std::string& endpoint, const char* what) {
  try {
    socket.bind(endpoint);
  } catch (const zmq::error_t& e) {
    std::string hint = "check the endpoint's spelling (tcp://*:PORT, ipc:///path)";
    if (e.num() == EADDRINUSE) {
      const auto colon = endpoint.rfind(':');
      const std::string port = colon == std::string::npos ? "" : endpoint.substr(colon + 1);
      hint = "another process listens there (ss -ltnp 'sport = :" + port +
             "'); the Plan gives every KV-event port to one process: look for a leftover job or relay";
    }
    fail(std::string("kv-relay: cannot bind the ") + what + " " + endpoint + ": " + e.what(), hint);
  }
}

std::uint64_t inode_of(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? std::uint64_t(st.st_ino) : 0;
}

}  // namespace

std::string ipc_path(const std::string& endpoint) {
  const std::string scheme = "ipc://";
  if (endpoint.compare(0, scheme.size(), scheme) != 0) return "";
  std::string path = endpoint.substr(scheme.size());
  if (path.empty() || path[0] == '@') return "";  // Linux abstract namespace: no file
  return path;
}

Relay::Relay(zmq::context_t& context, RelayOptions options)
    : options_(std::move(options)),
      xsub_(context, zmq::socket_type::xsub),
      xpub_(context, zmq::socket_type::xpub),
      control_(context, zmq::socket_type::pair),
      steer_(context, zmq::socket_type::pair) {
  for (zmq::socket_t* s : {&xsub_, &xpub_, &control_, &steer_}) s->set(zmq::sockopt::linger, 0);
  steer_.set(zmq::sockopt::rcvtimeo, 2000);  // a proxy that already died must not hang stop()
  xsub_.set(zmq::sockopt::rcvhwm, options_.hwm);
  xsub_.set(zmq::sockopt::sndhwm, options_.hwm);
  xpub_.set(zmq::sockopt::sndhwm, options_.hwm);
  xpub_.set(zmq::sockopt::rcvhwm, options_.hwm);
  // Both read from other processes: the ranks (ingress) and the network (subscribers).
  xsub_.set(zmq::sockopt::maxmsgsize, kMaxEventMessageBytes);
  xpub_.set(zmq::sockopt::maxmsgsize, kMaxSubscriptionBytes);

  ipc_path_ = ipc_path(options_.ingress);
  if (!ipc_path_.empty()) claim_ipc_path(ipc_path_, options_.ingress);
  bind_or_fail(xsub_, options_.ingress, "ingress");
  if (!ipc_path_.empty()) ipc_inode_ = inode_of(ipc_path_);
  try {
    bind_or_fail(xpub_, options_.bind, "advertised endpoint");
  } catch (...) {
    xsub_.close();  // libzmq removes the ipc file it created when the listener closes
    if (ipc_inode_ && inode_of(ipc_path_) == ipc_inode_) ::unlink(ipc_path_.c_str());
    throw;
  }
  std::array<char, 64> name{};
  std::snprintf(name.data(), name.size(), "inproc://srt-kv-relay-control-%p", static_cast<void*>(this));
  control_.bind(name.data());
  steer_.connect(name.data());
}

Relay::~Relay() {
  xsub_.close();
  xpub_.close();
  // libzmq unlinks on a clean close; this covers the rest (and never touches a file another
  // process created at the same path since).
  if (ipc_inode_ && inode_of(ipc_path_) == ipc_inode_) ::unlink(ipc_path_.c_str());
}

void Relay::run() {
  zmq::proxy_steerable(xsub_, xpub_, zmq::socket_ref(), control_);
}

RelayStats Relay::stop() {
  RelayStats stats;
  steer_.send(zmq::str_buffer("STATISTICS"), zmq::send_flags::none);
  // Eight uint64 frames: frontend msgs/bytes in, msgs/bytes out, then the same for the backend.
  std::array<std::uint64_t, 8> counters{};
  for (auto& c : counters) {
    zmq::message_t frame;
    if (!steer_.recv(frame)) break;
    if (frame.size() == sizeof(c)) std::memcpy(&c, frame.data(), sizeof(c));
  }
  stats.ingress_messages = counters[0];
  stats.egress_messages = counters[6];
  steer_.send(zmq::str_buffer("TERMINATE"), zmq::send_flags::none);
  return stats;
}

}  // namespace srt::kv

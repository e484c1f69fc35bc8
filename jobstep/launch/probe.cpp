#include "probe.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <httplib.h>

#include "srt/unique_fd.hpp"

#include "srt/readiness.hpp"

namespace srt::launch {
namespace {

// A request's outcome, said for a person: httplib's error names are terse ("Connection").
ProbeResult result_of(const httplib::Result& res) {
  ProbeResult r;
  if (!res) {
    switch (res.error()) {
      case httplib::Error::Connection: r.why = "nothing listening yet (connection refused or unreachable)"; break;
      case httplib::Error::Read: r.why = "no answer within the read timeout (or the connection closed)"; break;
      default: r.why = httplib::to_string(res.error());
    }
    return r;
  }
  r.status = res->status;
  r.body = res->body;
  r.ok = res->status == 200;
  if (!r.ok) r.why = "HTTP " + std::to_string(res->status);
  return r;
}

}  // namespace

ProbeResult http_get(const std::string& host, int port, const std::string& path) {
  httplib::Client client(host, port);
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(1, 0);
  client.set_write_timeout(1, 0);
  return result_of(client.Get(path));
}

ProbeResult tcp_connect(const std::string& host, int port) {
  ProbeResult r;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    r.why = std::string("cannot resolve ") + host + ": " + ::gai_strerror(rc);
    return r;
  }
  r.why = "nothing listening yet (connection refused or unreachable)";
  for (const addrinfo* a = found; a && !r.ok; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (fd.get() < 0) continue;
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
      r.ok = true;
      break;
    }
    if (errno != EINPROGRESS) continue;
    pollfd p{fd.get(), POLLOUT, 0};
    if (::poll(&p, 1, 200) != 1) continue;
    int err = 0;
    socklen_t len = sizeof err;
    r.ok = ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
  }
  ::freeaddrinfo(found);
  if (r.ok) r.why.clear();
  return r;
}

ProbeResult http_post_json(const std::string& host, int port, const std::string& path, const std::string& body,
                           int read_seconds) {
  httplib::Client client(host, port);
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(read_seconds, 0);
  client.set_write_timeout(1, 0);
  return result_of(client.Post(path, body, "application/json"));
}

bool workers_gate(const ProbeResult& r, int prefill, int decode, std::string& why, bool* extra,
                  const std::set<std::string>* planned) {
  if (extra) *extra = false;
  if (!r.ok) {
    why = r.why;
    return false;
  }
  const Readiness gate = router_workers_ready(r.body, prefill, decode, planned);
  why = gate.why;
  if (extra) *extra = gate.extra;
  return gate.ready;
}

}  // namespace srt::launch

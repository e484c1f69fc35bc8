#include "probe.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "srt/unique_fd.hpp"

#include "srt/readiness.hpp"

namespace srt::launch {
namespace {

constexpr std::size_t kKiB = 1024;

// A request's outcome, said for a person: httplib's error names are terse ("Connection").
ProbeResult result_of(const httplib::Result& res, std::string body, bool too_big, bool timed_out,
                      const HttpBounds& bounds) {
  ProbeResult r;
  r.too_big = too_big;
  r.timed_out = timed_out || (!res && res.error() == httplib::Error::Read);
  if (too_big) {
    r.why = "the answer is larger than " + std::to_string(bounds.max_bytes) + " bytes; not read";
    return r;
  }
  if (timed_out) {
    r.why = "no whole answer within " + std::to_string(int(bounds.seconds * 1000)) + " ms";
    return r;
  }
  if (!res) {
    switch (res.error()) {
      case httplib::Error::Connection: r.why = "nothing listening yet (connection refused or unreachable)"; break;
      case httplib::Error::Read: r.why = "no answer within the read timeout (or the connection closed)"; break;
      default: r.why = httplib::to_string(res.error());
    }
    return r;
  }
  r.status = res->status;
  r.body = std::move(body);
  r.ok = res->status == 200;
  if (!r.ok) r.why = "HTTP " + std::to_string(res->status);
  return r;
}

// Ends `client`'s request in flight at the deadline (ClientImpl::stop shuts its socket down):
// httplib's own timeouts are per read, so a peer that trickles a byte at a time, in its headers
// or its body, would otherwise hold the launcher's loop for as long as it likes.
class Deadline {
 public:
  Deadline(httplib::Client& client, double seconds)
      : thread_([this, &client, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
          if (!done_cv_.wait_until(lock, until, [this] { return done_; })) {
            passed_ = true;
            client.stop();
          }
        }) {}
  ~Deadline() { finish(); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  // The request is over: the watch ends; true when it was the deadline that ended it.
  bool finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return passed_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false, passed_ = false;
  std::thread thread_;
};

void set_timeouts(httplib::Client& client, double read_seconds) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(read_seconds)).count();
  client.set_connection_timeout(0, 200 * 1000);
  client.set_read_timeout(time_t(micros / 1000000), time_t(micros % 1000000));
  client.set_write_timeout(1, 0);
  client.set_decompress(false);
  client.set_follow_location(false);
}

// The body, up to the cap: the receiver refuses what would pass it, which ends the request.
httplib::ContentReceiver capped(std::string& body, std::size_t max_bytes, bool& too_big) {
  return [&body, max_bytes, &too_big](const char* data, std::size_t n) {
    if (body.size() + n > max_bytes) return !(too_big = true);
    body.append(data, n);
    return true;
  };
}

}  // namespace

HttpBounds get_bounds(const std::string& path) {
  const std::string p = path.substr(0, path.find('?'));
  if (p == "/metrics") return {8 * kKiB * kKiB, 2.0};  // an engine's histograms, an exporter's eight GPUs
  if (p == "/workers" || p == "/list_workers") return {4 * kKiB * kKiB, 2.0};  // one entry per worker and DP rank
  if (p == "/health" || p == "/health_generate" || p == "/v1/models" || p == "/readiness" || p == "/liveness")
    return {16 * kKiB, 2.0};
  return {256 * kKiB, 2.0};  // /server_info, /get_server_info: the engine's whole argument set
}

ProbeResult http_get(const std::string& host, int port, const std::string& path) {
  return http_get(host, port, path, get_bounds(path));
}

ProbeResult http_get(const std::string& host, int port, const std::string& path, const HttpBounds& bounds) {
  httplib::Client client(host, port);
  set_timeouts(client, std::min(1.0, bounds.seconds));
  std::string body;
  bool too_big = false;
  Deadline deadline(client, bounds.seconds);
  httplib::Result res = client.Get(path, capped(body, bounds.max_bytes, too_big));
  const bool timed_out = deadline.finish();
  return result_of(res, std::move(body), too_big, timed_out, bounds);
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
  const HttpBounds bounds{256 * kKiB, double(read_seconds) + 1.0};
  httplib::Client client(host, port);
  set_timeouts(client, double(read_seconds));
  // The answer through a response handler and receiver: httplib's Post has no receiver form here.
  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.body = body;
  req.set_header("Content-Type", "application/json");
  std::string answer;
  bool too_big = false;
  req.content_receiver = [receive = capped(answer, bounds.max_bytes, too_big)](const char* data, std::size_t n, std::uint64_t,
                                                                               std::uint64_t) { return receive(data, n); };
  Deadline deadline(client, bounds.seconds);
  httplib::Result res = client.send(req);
  const bool timed_out = deadline.finish();
  return result_of(res, std::move(answer), too_big, timed_out, bounds);
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

// The launcher's HTTP reads against hostile peers (launch/probe.hpp HttpBounds): a body that never
// ends, a gzip bomb, and a peer that trickles one byte at a time, in its headers or its body, each
// end as a failed request by their cap or deadline, with no more than the cap held. The peer is a
// raw TCP server on loopback, so every byte it sends is the test's.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "launch/probe.hpp"

using srt::launch::HttpBounds;
using srt::launch::ProbeResult;

namespace test_http_bounds {
namespace {

// One connection at a time on 127.0.0.1:<port>, answered by `serve` (which writes what it likes
// until it returns, or the client goes); bounded: it stops on destruction.
class Peer {
 public:
  explicit Peer(std::function<void(int, const std::atomic<bool>&)> serve) : serve_(std::move(serve)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int on = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      (void)::recv(c, buf, sizeof buf, 0);  // the request: read, not judged
      serve_(c, stop_);
      ::close(c);
    });
  }
  ~Peer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }

 private:
  std::function<void(int, const std::atomic<bool>&)> serve_;
  std::atomic<bool> stop_{false};
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

bool send_all(int fd, const std::string& s) { return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == ssize_t(s.size()); }

// Sends `s` a byte at a time, `gap` apart, until the client goes or the test ends.
void trickle(int fd, const std::string& s, std::chrono::milliseconds gap, const std::atomic<bool>& stop) {
  for (char ch : s) {
    if (stop || !send_all(fd, std::string(1, ch))) return;
    std::this_thread::sleep_for(gap);
  }
}

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("an endless body ends at its cap, with no more than the cap held", "[launch][hostile]") {
  Peer peer([](int fd, const std::atomic<bool>& stop) {
    if (!send_all(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return;
    const std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
    for (int i = 0; i < 100000 && !stop; ++i)  // 6.5 GB at most, far past any cap
      if (!send_all(fd, chunk)) return;
  });
  ProbeResult r;
  const double took = seconds_of([&] { r = srt::launch::http_get("127.0.0.1", peer.port(), "/health"); });
  CHECK_FALSE(r.ok);
  CHECK(r.too_big);
  CHECK(r.body.empty());
  CHECK_THAT(r.why, Catch::Contains("larger than 16384 bytes"));
  CHECK(took < 10);
}

TEST_CASE("a gzip bomb is never inflated: its bytes are what was sent, within the cap", "[launch][hostile]") {
  // A gzip member of 1 GiB of zeros is about 1 MiB; here only its header and a little deflate
  // data: whatever it would inflate to, the launcher must see the compressed bytes.
  const std::string compressed = std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + std::string(2000, '\0');
  Peer peer([&](int fd, const std::atomic<bool>&) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(compressed.size()) +
                     "\r\n\r\n" + compressed);
  });
  const ProbeResult r = srt::launch::http_get("127.0.0.1", peer.port(), "/v1/models");
  // Either refused or read raw: never more bytes than were sent.
  CHECK(r.body.size() <= compressed.size());
  if (r.ok) CHECK(r.body == compressed);
}

TEST_CASE("a peer trickling its headers or its body ends at the request's deadline", "[launch][hostile]") {
  const std::string headers = "HTTP/1.1 200 OK\r\nX-Slow: " + std::string(200, 'a') + "\r\n\r\n";
  for (const bool in_body : {false, true}) {
    INFO((in_body ? "body" : "headers"));
    Peer peer([&](int fd, const std::atomic<bool>& stop) {
      if (in_body) {
        if (!send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")) return;
        trickle(fd, std::string(100000, 'y'), std::chrono::milliseconds(200), stop);
      } else {
        trickle(fd, headers, std::chrono::milliseconds(200), stop);  // each byte inside the read timeout
      }
    });
    ProbeResult r;
    const HttpBounds bounds{64 * 1024, 1.5};
    const double took = seconds_of([&] { r = srt::launch::http_get("127.0.0.1", peer.port(), "/metrics", bounds); });
    CHECK_FALSE(r.ok);
    CHECK(r.timed_out);
    CHECK_THAT(r.why, Catch::Contains("no whole answer within 1500 ms"));
    CHECK(took >= 1.4);
    CHECK(took < 6);  // the deadline, not the 40 s the headers or the 20 s the body would take
  }
}

TEST_CASE("a well-behaved answer within its cap is read whole", "[launch]") {
  Peer peer([](int fd, const std::atomic<bool>&) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{\"status\":\"ok\"}");
  });
  const ProbeResult r = srt::launch::http_get("127.0.0.1", peer.port(), "/health");
  CHECK(r.ok);
  CHECK(r.body == "{\"status\":\"ok\"}");
  CHECK(srt::launch::get_bounds("/workers").max_bytes > srt::launch::get_bounds("/health").max_bytes);
  CHECK(srt::launch::get_bounds("/metrics?x=1").max_bytes == srt::launch::get_bounds("/metrics").max_bytes);
}

}  // namespace test_http_bounds

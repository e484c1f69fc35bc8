// Relay throughput and loss: N publishers (PUB connecting to the ipc ingress, as DP ranks do)
// -> srt::kv::Relay (the code srt-helper kv-relay runs) -> one SUB on the advertised tcp port.
// Messages are [topic, seq(8 B), payload(256 B)], the KV-event framing. Prints sent, received,
// lost and rates; --fail-on-loss makes any loss the exit status.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <zmq_addon.hpp>

#include "kv/relay.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int publishers = 4;
  double rate = 100000;  // messages per second, all publishers together; 0 = as fast as possible
  double seconds = 5;
  int payload_bytes = 256;
  int hwm = 100000;
  int port = 0;  // 0: pick one
  bool fail_on_loss = false;
};

// A port the kernel says is free now (a ZeroMQ probe would still hold it: its close is async).
int free_tcp_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct Shared {
  std::atomic<bool> go{false};
  std::vector<std::atomic<bool>> warm;  // the subscriber has heard publisher i
  std::vector<std::uint64_t> sent;     // written by each publisher before it counts itself finished
  std::atomic<int> finished{0};
  explicit Shared(int n) : warm(std::size_t(n)), sent(std::size_t(n), 0) {}
};

void publish(zmq::context_t& ctx, const std::string& ingress, int id, const Options& o, Shared& s) {
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::linger, 2000);
  pub.set(zmq::sockopt::sndhwm, o.hwm);
  pub.connect(ingress);
  const std::string topic = "p" + std::to_string(id);
  // Until the subscription has travelled SUB -> XPUB -> XSUB -> this PUB, sends are dropped
  // (ZeroMQ's slow joiner): announce ourselves until the subscriber has heard us.
  const auto warm_deadline = Clock::now() + std::chrono::seconds(10);
  while (!s.go && Clock::now() < warm_deadline) {
    if (!s.warm[std::size_t(id)]) pub.send(zmq::buffer(topic), zmq::send_flags::dontwait);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string payload(std::size_t(o.payload_bytes), 'x');
  const double per_pub = o.rate / o.publishers;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(o.seconds);
  std::uint64_t seq = 0;
  while (true) {
    const auto now = Clock::now();
    if (now >= end) break;
    // Pace in 1 ms slices: send what the schedule says is due by now.
    const std::uint64_t due = o.rate > 0 ? std::uint64_t(std::chrono::duration<double>(now - start).count() * per_pub)
                                         : seq + 256;
    if (seq >= due) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      continue;
    }
    for (; seq < due; ++seq) {
      std::uint64_t be = 0;
      for (int b = 0; b < 8; ++b) be |= ((seq >> (8 * b)) & 0xff) << (8 * (7 - b));
      pub.send(zmq::buffer(topic), zmq::send_flags::sndmore);
      pub.send(zmq::buffer(&be, sizeof(be)), zmq::send_flags::sndmore);
      pub.send(zmq::buffer(payload), zmq::send_flags::none);  // PUB never blocks: drops at HWM
    }
  }
  s.sent[std::size_t(id)] = seq;
  s.finished.fetch_add(1, std::memory_order_release);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"KV-event relay throughput and loss"};
  app.add_option("--publishers", o.publishers, "publishing ranks")->check(CLI::Range(1, 256));
  app.add_option("--rate", o.rate, "total messages/s (0: as fast as possible)")->check(CLI::NonNegativeNumber);
  app.add_option("--seconds", o.seconds, "publishing time")->check(CLI::PositiveNumber);
  app.add_option("--payload-bytes", o.payload_bytes, "payload size")->check(CLI::Range(1, 1 << 20));
  app.add_option("--hwm", o.hwm, "high-water mark of every socket")->check(CLI::Range(1, 10000000));
  app.add_option("--port", o.port, "advertised tcp port (default: a free one)");
  app.add_flag("--fail-on-loss", o.fail_on_loss, "exit 1 if any message is lost");
  CLI11_PARSE(app, argc, argv);

  zmq::context_t ctx(2);
  const int port = o.port ? o.port : free_tcp_port();
  srt::kv::RelayOptions ro;
  ro.ingress = "ipc:///tmp/srt-kv-bench-" + std::to_string(getpid()) + ".sock";
  ro.bind = "tcp://*:" + std::to_string(port);
  ro.hwm = o.hwm;
  srt::kv::Relay relay(ctx, ro);
  std::thread proxy([&] { relay.run(); });

  zmq::socket_t sub(ctx, zmq::socket_type::sub);
  sub.set(zmq::sockopt::linger, 0);
  sub.set(zmq::sockopt::rcvhwm, o.hwm);
  sub.set(zmq::sockopt::subscribe, "");
  sub.connect("tcp://127.0.0.1:" + std::to_string(port));

  Shared shared(o.publishers);
  std::vector<std::thread> pubs;
  for (int i = 0; i < o.publishers; ++i) pubs.emplace_back(publish, std::ref(ctx), ro.ingress, i, std::cref(o), std::ref(shared));

  std::vector<std::uint64_t> received(std::size_t(o.publishers), 0), gaps(std::size_t(o.publishers), 0);
  std::vector<std::int64_t> last(std::size_t(o.publishers), -1);
  int warm = 0;
  Clock::time_point first{}, latest{};
  auto idle_since = Clock::now();
  const auto hard_deadline = Clock::now() + std::chrono::duration<double>(o.seconds + 30);
  sub.set(zmq::sockopt::rcvtimeo, 100);
  while (Clock::now() < hard_deadline) {
    std::vector<zmq::message_t> parts;
    if (!zmq::recv_multipart(sub, std::back_inserter(parts))) {
      // Done when every publisher has ended and nothing more came for a second.
      if (shared.finished.load(std::memory_order_acquire) == o.publishers &&
          Clock::now() - idle_since > std::chrono::seconds(1))
        break;
      continue;
    }
    idle_since = Clock::now();
    const std::string topic(static_cast<const char*>(parts[0].data()), parts[0].size());
    const int id = std::stoi(topic.substr(1));
    if (parts.size() == 1) {  // a warm-up announcement
      if (!shared.warm[std::size_t(id)].exchange(true) && ++warm == o.publishers) shared.go = true;
      continue;
    }
    std::uint64_t seq = 0;
    const auto* bytes = static_cast<const unsigned char*>(parts[1].data());
    for (std::size_t b = 0; b < parts[1].size(); ++b) seq = (seq << 8) | bytes[b];
    if (first == Clock::time_point{}) first = Clock::now();
    latest = Clock::now();
    auto& l = last[std::size_t(id)];
    if (std::int64_t(seq) > l + 1) gaps[std::size_t(id)] += std::uint64_t(std::int64_t(seq) - l - 1);
    l = std::int64_t(seq);
    ++received[std::size_t(id)];
  }
  for (auto& t : pubs) t.join();
  const srt::kv::RelayStats stats = relay.stop();
  proxy.join();

  std::uint64_t sent = 0, got = 0, lost_gaps = 0;
  for (int i = 0; i < o.publishers; ++i) {
    sent += shared.sent[std::size_t(i)];
    got += received[std::size_t(i)];
    lost_gaps += gaps[std::size_t(i)];
  }
  const std::uint64_t lost = sent - std::min(sent, got);
  const double span = std::chrono::duration<double>(latest - first).count();
  std::printf("bench_kv_relay: publishers=%d target_rate=%.0f msg/s payload=%d B hwm=%d seconds=%.1f\n", o.publishers,
              o.rate, o.payload_bytes, o.hwm, o.seconds);
  std::printf("  sent=%llu received=%llu lost=%llu (seq gaps %llu) loss=%.4f%%\n",
              static_cast<unsigned long long>(sent), static_cast<unsigned long long>(got),
              static_cast<unsigned long long>(lost), static_cast<unsigned long long>(lost_gaps),
              sent ? 100.0 * double(lost) / double(sent) : 0.0);
  std::printf("  sent rate=%.0f msg/s, received rate=%.0f msg/s over %.2f s; relay messages in=%llu out=%llu\n",
              double(sent) / o.seconds, span > 0 ? double(got) / span : 0.0, span,
              static_cast<unsigned long long>(stats.ingress_messages),
              static_cast<unsigned long long>(stats.egress_messages));
  if (!shared.go) {
    std::fprintf(stderr, "bench_kv_relay: the subscriber never heard every publisher (warm-up failed)\n");
    return 2;
  }
  return o.fail_on_loss && lost > 0 ? 1 : 0;
}

// The worker-local KV-event relay (docs/design.md "KV events", mode relay): an XSUB bound on a private
// ingress that every DP rank's PUB connects to, forwarded to one XPUB bound on the endpoint the
// Plan advertises. Infera PR #121's design (docs/design.md "KV events").
#pragma once
#include <cstdint>
#include <string>

#include <zmq.hpp>

namespace srt::kv {

// The largest message the advertised endpoint reads: subscriptions ('\x01' + topic prefix)
// from subscribers. Topics are "" (ATOM, vLLM), "kv-events" (Infera's hook) or
// "kv@<host>@<model>" (llm-d); 1 KiB is far longer than any. It also bounds what one
// subscription costs: libzmq keeps it in a trie of ~64 bytes per byte and frees that
// recursively, one stack frame per byte, so one 2 MiB subscription grew the relay by 133 MB
// and crashed it (SIGSEGV) when the subscriber left; the XSUB passes it on to every rank too.
inline constexpr std::int64_t kMaxSubscriptionBytes = 1024;

struct RelayOptions {
  std::string ingress;  // ipc:///tmp/srt-kv-<job>-<role>-<i>.sock (ranks connect here)
  std::string bind;     // tcp://*:PORT (subscribers connect here)
  // Messages queued per pipe before libzmq drops. libzmq's default (1000) is 10 ms at 100k msg/s,
  // so one slow poll of a subscriber would lose events; vLLM's publisher uses 100000
  // (ZmqEventPublisher's hwm, vllm-project/vllm vllm/distributed/kv_events.py @ 0181ea31), about a
  // second of a burst and ~27 MB of 256-byte events per pipe in the worst case.
  int hwm = 100000;
};

// Message counts of both sides, from zmq_proxy_steerable's STATISTICS command.
struct RelayStats {
  std::uint64_t ingress_messages = 0;  // received from the ranks
  std::uint64_t egress_messages = 0;   // handed to the XPUB (it still drops for a full subscriber)
};

// Binds both sockets at construction, so a taken endpoint fails before anything runs; the ipc
// ingress file is removed on destruction if it is still the one this relay created.
class Relay {
 public:
  Relay(zmq::context_t& context, RelayOptions options);
  ~Relay();
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Forwards until stop() is called from another thread. Call once.
  void run();
  // Thread-safe with respect to run(): asks the proxy for its counters, then ends it.
  RelayStats stop();

  const RelayOptions& options() const { return options_; }

 private:
  RelayOptions options_;
  std::string ipc_path_;   // the ingress file, when the ingress is ipc:// (not abstract)
  std::uint64_t ipc_inode_ = 0;
  zmq::socket_t xsub_;
  zmq::socket_t xpub_;
  zmq::socket_t control_;  // the proxy's end (used by run())
  zmq::socket_t steer_;    // our end (used by stop())
};

// "ipc:///tmp/x.sock" -> "/tmp/x.sock"; "" for other transports and abstract (@) names.
std::string ipc_path(const std::string& endpoint);

}  // namespace srt::kv

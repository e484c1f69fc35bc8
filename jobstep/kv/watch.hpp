// Subscribe to KV-event endpoints and count, per endpoint, which DP ranks publish and how much:
// the check that every rank of every worker reaches a subscriber (docs/design.md "KV events").
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <zmq.hpp>

namespace srt::kv {

inline constexpr int kNoRank = -1;  // batches that carry no data_parallel_rank

struct RankTally {
  std::uint64_t batches = 0;
  std::uint64_t events = 0;
  std::uint64_t seq_gaps = 0;  // sequence numbers skipped after the first one seen (lost batches)
  std::optional<std::uint64_t> last_seq;
};

struct EndpointTally {
  std::string endpoint;                // as given
  std::map<int, RankTally> ranks;      // by data_parallel_rank, kNoRank for unranked batches
  std::uint64_t undecodable = 0;
  std::string last_error;              // why the last undecodable message was refused
  // Times the connection ended and kv-watch connected again. libzmq drops a publisher whose
  // message exceeds kMaxEventMessageBytes and, having called that a protocol error, would not
  // reconnect by itself: one oversized batch must not blind the rest of the watch.
  std::uint64_t reconnects = 0;
};

struct WatchOptions {
  std::vector<std::string> endpoints;
  double seconds = 10;   // the whole budget
  int expect_ranks = 0;  // > 0: stop as soon as every endpoint has this many distinct ranks
};

struct WatchResult {
  std::vector<EndpointTally> endpoints;
  double elapsed_seconds = 0;
  bool expectation_met = false;  // always true when expect_ranks is 0
};

// "tcp://*:P" / "tcp://0.0.0.0:P" are bind forms; a subscriber on the same node connects to
// 127.0.0.1 instead. Anything else is returned unchanged.
std::string connectable(const std::string& endpoint);

WatchResult watch(zmq::context_t& context, const WatchOptions& options);

}  // namespace srt::kv

// What a KV-event subscriber needs from one ZeroMQ message: which DP rank sent it, how many
// events it carries, and its sequence number. Frames and payload as the engines publish them:
// [payload] or [topic, payload] (ATOM at ffdf3bb) or
// [topic, seq(8-byte big-endian), payload] (vLLM, SGLang, ATOM PR #1316); the payload is a
// msgpack EventBatch, either array_like [ts, events, data_parallel_rank] (ATOM, SGLang) or a map
// {ts, events, data_parallel_rank | attn_dp_rank} (vLLM's tagged maps, Infera's hook).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace srt::kv {

// The largest message a KV-event socket reads (ZMQ_MAXMSGSIZE: libzmq drops a peer that sends
// more, before allocating it). A batch is one scheduler step's events: at ATOM's default
// --max-num-batched-tokens 16384 and --block-size 16 that is at most ~1.5k newly full blocks
// (BlockStored: 16 token ids of <= 5 bytes in msgpack, a hash of up to 34 bytes) and as many
// evicted (BlockRemoved: the hash), ~250 KB. 16 MiB is 60 times that: a step of a million
// tokens still fits, a 400 MiB frame (which ended kv-relay in the OOM killer) does not.
inline constexpr std::int64_t kMaxEventMessageBytes = std::int64_t(16) << 20;

struct KvEventBatch {
  std::optional<int> data_parallel_rank;  // absent: the publisher does not say (Infera's hook)
  std::size_t events = 0;
  std::optional<std::uint64_t> seq;       // only with 3-frame framing
  std::string topic;
};

// The batch in `frames` (each frame's bytes), or nullopt with `error` saying what was wrong.
std::optional<KvEventBatch> decode_kv_message(const std::vector<std::string_view>& frames, std::string& error);

}  // namespace srt::kv

// What a KV-event subscriber needs from one ZeroMQ message: which DP rank sent it, how many
// events it carries, and its sequence number. Frames and payload as reference
// atom-mooncake-kvevents.md 3.1-3.2: [payload] or [topic, payload] (ATOM at ffdf3bb) or
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

struct KvEventBatch {
  std::optional<int> data_parallel_rank;  // absent: the publisher does not say (Infera's hook)
  std::size_t events = 0;
  std::optional<std::uint64_t> seq;       // only with 3-frame framing
  std::string topic;
};

// The batch in `frames` (each frame's bytes), or nullopt with `error` saying what was wrong.
std::optional<KvEventBatch> decode_kv_message(const std::vector<std::string_view>& frames, std::string& error);

}  // namespace srt::kv

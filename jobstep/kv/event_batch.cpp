#include "event_batch.hpp"

#include <msgpack.hpp>

namespace srt::kv {

namespace {

// An EventBatch is [ts, [event, [hashes...], ...], rank]: four levels; 64 is plenty and keeps
// a hostile payload of nested arrays from costing a deep parse.
constexpr std::size_t kMaxPayloadDepth = 64;

std::optional<int> rank_of(const msgpack::object& o) {
  if (o.type == msgpack::type::POSITIVE_INTEGER) return int(o.via.u64);
  return std::nullopt;  // nil (omitted by omit_defaults) or anything else: no rank
}

bool is_key(const msgpack::object& key, std::string_view name) {
  return key.type == msgpack::type::STR && std::string_view(key.via.str.ptr, key.via.str.size) == name;
}

bool decode_payload(const msgpack::object& batch, KvEventBatch& out, std::string& error) {
  if (batch.type == msgpack::type::ARRAY) {
    const msgpack::object_array& a = batch.via.array;
    // A tagged struct puts its tag first; EventBatch is untagged today, but skip one if present.
    std::uint32_t i = a.size > 0 && a.ptr[0].type == msgpack::type::STR ? 1 : 0;
    if (a.size < i + 2 || a.ptr[i + 1].type != msgpack::type::ARRAY) {
      error = "payload is a msgpack array but not [ts, [events...], rank]";
      return false;
    }
    out.events = a.ptr[i + 1].via.array.size;
    if (a.size > i + 2) out.data_parallel_rank = rank_of(a.ptr[i + 2]);
    return true;
  }
  if (batch.type == msgpack::type::MAP) {
    bool has_events = false;
    const msgpack::object_map& m = batch.via.map;
    for (std::uint32_t i = 0; i < m.size; ++i) {
      const msgpack::object_kv& kv = m.ptr[i];
      if (is_key(kv.key, "events") && kv.val.type == msgpack::type::ARRAY) {
        out.events = kv.val.via.array.size;
        has_events = true;
      } else if (is_key(kv.key, "data_parallel_rank") || is_key(kv.key, "attn_dp_rank")) {
        out.data_parallel_rank = rank_of(kv.val);
      }
    }
    if (!has_events) error = "payload is a msgpack map without an 'events' list";
    return has_events;
  }
  error = "payload is not a msgpack EventBatch (neither array nor map)";
  return false;
}

}  // namespace

std::optional<KvEventBatch> decode_kv_message(const std::vector<std::string_view>& frames, std::string& error) {
  KvEventBatch out;
  if (frames.empty() || frames.size() > 3) {
    error = "expected 1-3 frames ([payload], [topic, payload], [topic, seq, payload]), got " +
            std::to_string(frames.size());
    return std::nullopt;
  }
  if (frames.size() >= 2) out.topic = std::string(frames[0]);
  if (frames.size() == 3) {
    if (frames[1].size() != 8) {
      error = "the sequence frame has " + std::to_string(frames[1].size()) + " bytes, not 8";
      return std::nullopt;
    }
    std::uint64_t seq = 0;
    for (unsigned char c : frames[1]) seq = (seq << 8) | c;  // big-endian on the wire
    out.seq = seq;
  }
  const std::string_view payload = frames.back();
  try {
    // Every msgpack element takes at least one byte, so no count may exceed the payload's size;
    // without that a 5-byte array header asks for 4 G objects (64 GB) before anything is read.
    const std::size_t n = payload.size();
    const msgpack::unpack_limit limit(n, n, n, n, n, kMaxPayloadDepth);
    std::size_t offset = 0;
    const msgpack::object_handle handle =
        msgpack::unpack(payload.data(), payload.size(), offset, nullptr, nullptr, limit);
    if (!decode_payload(handle.get(), out, error)) return std::nullopt;
  } catch (const std::exception& e) {
    error = std::string("payload is not valid msgpack: ") + e.what();
    return std::nullopt;
  }
  return out;
}

}  // namespace srt::kv

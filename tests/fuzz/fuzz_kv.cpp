// libFuzzer target: decoding a KV-event message as kv-watch does (jobstep/kv/event_batch.hpp), on
// any frames. The input is [frame count][length of each frame but the last]...[frames]: byte 0
// picks 0-4 frames (so 0 and 4, which are refused, come up too), one length byte per frame
// before the last, the last frame is the rest. The property: every message is a batch or a
// refusal that says why; nothing is thrown, no sanitizer report, no allocation beyond what the
// payload holds (libFuzzer's -malloc_limit_mb catches a 5-byte header that asks for 64 GB).
// The relay decodes nothing itself: it forwards frames libzmq has bounded (ZMQ_MAXMSGSIZE).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kv/event_batch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t count = static_cast<unsigned char>(in[0]) % 5;
  std::size_t at = 1;
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i + 1 < count && at < in.size(); ++i) lengths.push_back(static_cast<unsigned char>(in[at++]));
  std::vector<std::string_view> frames;
  for (std::size_t n : lengths) {
    n = std::min(n, in.size() - at);
    frames.push_back(in.substr(at, n));
    at += n;
  }
  if (count > 0) frames.push_back(in.substr(at));
  std::string error;
  const auto batch = srt::kv::decode_kv_message(frames, error);
  if (!batch && error.empty()) __builtin_trap();      // a refusal must say why
  if (batch && batch->events > size) __builtin_trap();  // every event takes at least a byte
  return 0;
}

// libFuzzer target: the recipe snapshot every slurmstepd of a recipe job decodes from the user's
// own environment (srt/snapshot.hpp). The first byte picks what the rest is:
//   0: a whole snapshot's bytes (base64-encoded here, as the environment carries them): the
//      envelope's CBOR, its format, version and digest checks;
//   else: a body's CBOR, wrapped here in an envelope with the right digest, so the fuzzer reaches
//      the body's reader and then the recipe and profile models a node builds from it.
// The property: each ends as a value or an srt::Error with a message; no other exception, no
// crash, no sanitizer report (nesting bounded before nlohmann's recursive reader runs).
#include <nettle/base64.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "srt/digest.hpp"
#include "srt/error.hpp"
#include "srt/job_plan.hpp"
#include "srt/snapshot.hpp"

namespace {

std::string base64(const std::uint8_t* data, std::size_t size) {
  std::string out(BASE64_ENCODE_RAW_LENGTH(size), '\0');
  base64_encode_raw(out.data(), size, data);
  return out;
}

std::string envelope(const std::uint8_t* body, std::size_t size) {
  const std::vector<std::uint8_t> bytes(body, body + size);
  const srt::Json outer = {{"format", srt::kSnapshotFormat},
                           {"package", "fuzz"},
                           {"sha256", srt::sha256_hex(std::string(bytes.begin(), bytes.end()))},
                           {"body", srt::Json::binary(bytes)}};
  const std::vector<std::uint8_t> raw = srt::Json::to_cbor(outer);
  return base64(raw.data(), raw.size());
}

// The profile document as a node's copy would hold it (root wrote it; fuzzed here all the same).
void models(const srt::Snapshot& s) {
  try {
    const srt::Profile p = srt::snapshot_profile(s, s.profile_digest, s.profile, "/etc/srt/cluster.yaml", "fuzz-node");
    (void)srt::snapshot_recipe(s, p);
  } catch (const srt::Error& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > srt::kMaxSnapshotBytes / 2) return 0;
  const std::string encoded = data[0] == 0 ? base64(data + 1, size - 1) : envelope(data + 1, size - 1);
  srt::Snapshot s;
  try {
    s = srt::decode_snapshot(encoded);
  } catch (const srt::Error& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
    return 0;
  }
  models(s);
  return 0;
}

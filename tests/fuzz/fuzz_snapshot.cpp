// libFuzzer target: the recipe snapshot every slurmstepd of a recipe job decodes from the user's
// own environment (srt/snapshot.hpp). The first byte picks what the rest is:
//   0: a whole snapshot's bytes (base64-encoded here, as the environment carries them): the
//      envelope's CBOR, its format, version and digest checks;
//   else: a body's CBOR, wrapped here in an envelope with the right digest, so the fuzzer reaches
//      the body's reader, the recipe and profile models a node builds from it, and the node's
//      Plan (plan_job on the snapshot, as user_init runs it).
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

constexpr int kMaxNodes = 48;  // bigger demands are valid but only slow the fuzzer down

// The profile document as a node's copy would hold it (root wrote it; fuzzed here all the same),
// then the node's Plan as slurmstepd builds it in user_init (spank/impl/stepd.cpp): plan_job on
// the snapshot, for the node that runs the batch step.
void models(const srt::Snapshot& s) {
  try {
    const srt::Profile p = srt::snapshot_profile(s, s.profile_digest, s.profile, "/etc/srt/cluster.yaml", "fuzz-node");
    const srt::Recipe r = srt::snapshot_recipe(s, p);
    const int demand = srt::node_demand(r, p);
    if (demand < 1 || demand > kMaxNodes) return;
    srt::JobFacts facts;
    for (int i = 0; i < demand; ++i) {
      facts.nodes.push_back("n" + std::to_string(i));
      facts.addresses[facts.nodes.back()] = "10.0.0." + std::to_string(i + 1);
    }
    facts.this_node = facts.nodes.front();
    facts.job_id = 4242;
    (void)srt::plan_job(s, p, facts);
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

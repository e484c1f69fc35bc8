// The snapshot's wire form. Read in every slurmstepd of a recipe job from the user's own
// environment: everything here treats the bytes as hostile (bounded size, bounded nesting checked
// before nlohmann's recursive CBOR reader builds anything, a digest over the content).
#include "srt/snapshot.hpp"

#include <nettle/base64.h>

#include <cstdint>
#include <vector>

#include "srt/digest.hpp"
#include "srt/error.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {

namespace {

using Bytes = std::vector<std::uint8_t>;

[[noreturn]] void damaged(const std::string& why) {
  fail("the job's recipe snapshot (" SRT_SNAPSHOT_JOB_ENV ") is damaged: " + why,
       "resubmit the job with --srt-recipe; the snapshot is written by the plugin, not by hand");
}

// The CBOR in `bytes` as a value, or damaged(): malformed, deeper than max_depth, or trailing bytes.
Json read_cbor(const Bytes& bytes, int max_depth, bool allow_binary, const char* what) {
  std::optional<Json> v = parse_untrusted_cbor(bytes, max_depth, allow_binary);
  if (!v)
    damaged(std::string(what) + " is not CBOR srt-spank wrote (malformed, or nested deeper than " +
            std::to_string(max_depth) + " levels)");
  return std::move(*v);
}

Bytes base64_decode(const std::string& encoded) {
  if (encoded.empty()) damaged("it is empty");
  if (encoded.size() > kMaxSnapshotBytes)
    damaged("it is " + std::to_string(encoded.size()) + " bytes, over the " + std::to_string(kMaxSnapshotBytes) +
            " the plugin ever writes");
  // Nettle's decoder (no libcrypto in slurmstepd: docs/design.md "The SPANK plugin") refuses any
  // byte outside the alphabet and checks the padding in base64_decode_final.
  Bytes raw(BASE64_DECODE_LENGTH(encoded.size()));
  base64_decode_ctx ctx;
  base64_decode_init(&ctx);
  std::size_t len = raw.size();
  if (encoded.size() % 4 != 0 ||
      base64_decode_update(&ctx, &len, raw.data(), encoded.size(), encoded.data()) != 1 ||
      base64_decode_final(&ctx) != 1)
    damaged("it is not base64");
  raw.resize(len);
  return raw;
}

std::string text_field(const Json& obj, const char* key, bool required = false) {
  const auto v = json_field::text(obj, key);
  if (!v && (required || obj.contains(key))) damaged(std::string("its '") + key + "' is missing or not text");
  return v.value_or("");
}

// A recipe nests at most LoadLimits::max_depth (refused at submit otherwise); the body adds two.
constexpr int kBodyDepth = 64 + 2;

}  // namespace

std::string encode_snapshot(const Snapshot& s) {
  Json body = {{"recipe_path", s.recipe_path}, {"recipe_text", s.recipe_text}, {"recipe", s.recipe},
               {"profile_digest", s.profile_digest}, {"profile", s.profile}};
  if (!s.variant_selector.empty()) body["variant"] = {{"selector", s.variant_selector}, {"name", s.variant_name}};
  const Bytes content = Json::to_cbor(body);
  const std::string digest = sha256_hex(std::string_view(reinterpret_cast<const char*>(content.data()), content.size()));
  // The format and the writer's version outside the digested body: a reader of any later format
  // can still say who wrote a snapshot it cannot read.
  const Json outer = {{"format", kSnapshotFormat}, {"package", s.package}, {"sha256", digest},
                      {"body", Json::binary(content)}};
  const Bytes raw = Json::to_cbor(outer);
  std::string out(BASE64_ENCODE_RAW_LENGTH(raw.size()), '\0');
  base64_encode_raw(out.data(), raw.size(), raw.data());
  if (out.size() > kMaxSnapshotBytes)
    fail("the recipe is too large to carry into the job (" + std::to_string(out.size()) + " bytes as the job's snapshot, " +
             std::to_string(kMaxSnapshotBytes) + " at most)",
         "keep recipes under " + std::to_string(kMaxSnapshotBytes * 3 / 8 / 1024) + " KiB");
  return out;
}

Snapshot decode_snapshot(const std::string& encoded) {
  const Bytes raw = base64_decode(encoded);
  if (!raw.empty() && raw.front() == '{')  // format 1 was JSON text: an older srt-spank wrote it
    fail("this job's recipe snapshot was written by an older srt-spank (snapshot format 1), and this one reads format " +
             std::to_string(kSnapshotFormat),
         "resubmit the job: the cluster's submit hosts and nodes must run the same srt-spank package");
  const Json outer = read_cbor(raw, 2, true, "its envelope");
  if (!outer.is_object()) damaged("it is not a map");
  const auto format = json_field::integer(outer, "format", 0, 1 << 20);
  const std::string package = text_field(outer, "package");
  if (!format) damaged("it has no format number");
  if (*format != kSnapshotFormat)
    fail("this job's recipe snapshot is format " + std::to_string(*format) + ", written by srt-spank " +
             (package.empty() ? "(unknown)" : package) + ", and this srt-spank reads format " +
             std::to_string(kSnapshotFormat),
         "resubmit the job: the cluster's submit hosts and nodes must run the same srt-spank package");
  const auto body_it = outer.find("body");
  if (body_it == outer.end() || !body_it->is_binary()) damaged("it has no body");
  const Bytes& content = body_it->get_binary();
  const std::string digest = sha256_hex(std::string_view(reinterpret_cast<const char*>(content.data()), content.size()));
  if (text_field(outer, "sha256", true) != digest) damaged("its content does not match its SHA-256");
  const Json body = read_cbor(content, kBodyDepth, false, "its body");
  if (!body.is_object()) damaged("its body is not a map");

  Snapshot s;
  s.package = package;
  s.recipe_path = text_field(body, "recipe_path");
  s.recipe_text = text_field(body, "recipe_text", true);
  s.profile_digest = text_field(body, "profile_digest");
  if (!body.contains("recipe") || !body.contains("profile")) damaged("it carries no recipe or no profile");
  s.recipe = body.at("recipe");
  s.profile = body.at("profile");
  if (body.contains("variant")) {
    const Json& v = body.at("variant");
    s.variant_selector = text_field(v, "selector", true);
    s.variant_name = text_field(v, "name", true);
  }
  return s;
}

void check_snapshot_package(const Snapshot& s, const std::string& mine, const std::string& where) {
  if (s.package == mine) return;
  fail("this job was submitted with srt-spank " + (s.package.empty() ? "(unknown)" : s.package) + " and " + where +
           " runs srt-spank " + mine + "; every host of a job must plan it with the same version",
       "the cluster admin must install one srt-spank version on the submit hosts and every node "
       "(srt-helper doctor shows it); then resubmit");
}

}  // namespace srt

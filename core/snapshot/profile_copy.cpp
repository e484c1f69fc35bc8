// The parsed copy of a node's profile (srt/profile_copy.hpp).
#include "srt/profile_copy.hpp"

#include <cstdint>
#include <vector>

#include "srt/error.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {
namespace {

constexpr int kProfileCopyFormat = 1;
// A profile nests at most LoadLimits::max_depth (the submit side refuses deeper); the envelope adds one.
constexpr int kProfileCopyDepth = 64 + 1;

std::string checked_profile_digest(const std::string& digest) {
  if (digest.size() != 64 || digest.find_first_not_of("0123456789abcdef") != std::string::npos)
    fail("'" + digest.substr(0, 80) + "' is not a SHA-256 digest of a profile");
  return digest;
}

}  // namespace

std::string profile_copy_name(const std::string& digest) {
  return std::string(kProfileCopyPrefix) + checked_profile_digest(digest) + std::string(kProfileCopySuffix);
}

std::string encode_profile_copy(const std::string& digest, const Json& document, const std::string& package) {
  const Json copy = {{"format", kProfileCopyFormat}, {"package", package}, {"digest", checked_profile_digest(digest)}, {"profile", document}};
  const std::vector<std::uint8_t> bytes = Json::to_cbor(copy);
  return std::string(bytes.begin(), bytes.end());
}

Json decode_profile_copy(std::string_view bytes, const std::string& digest, const std::string& package,
                         const std::string& source) {
  const std::vector<std::uint8_t> raw(bytes.begin(), bytes.end());
  std::optional<Json> copy = parse_untrusted_cbor(raw, kProfileCopyDepth, false);
  const auto refuse = [&](const std::string& why) {
    fail(source + ": not a profile copy this srt-spank can use (" + why + ")",
         "run 'srt-helper topology --refresh-cache' as root on this node");
  };
  if (!copy || !copy->is_object()) refuse("not CBOR srt-spank wrote");
  if (json_field::integer(*copy, "format", 0, 1 << 20) != kProfileCopyFormat) refuse("another format");
  const std::string written_by = json_field::text(*copy, "package").value_or("");
  if (written_by != package) refuse("written by srt-spank " + written_by + ", this is " + package);
  if (json_field::text(*copy, "digest").value_or("") != digest) refuse("a copy of another profile file");
  const auto it = copy->find("profile");
  if (it == copy->end() || !it->is_object()) refuse("no profile document");
  return std::move(*it);
}

}  // namespace srt

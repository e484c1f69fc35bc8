// JSON another process wrote (the preflight probe's answer, the router's /workers, a result
// file, status.json), read so that no input makes the reader throw anything but srt::Error, crash
// or see a number that wrapped. nlohmann's value() and get<T>() throw type_error on a wrong type,
// its copy, dump and comparison recurse once per level of nesting (a million levels overflow the
// stack), and get<int>() of 2^32 is 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "srt/document.hpp"

namespace srt {

// Deeper than anything srt-helper reads (a Plan nests 5 levels, a probe's answer 4, a result
// file 3), shallow enough for every recursive operation on the value.
inline constexpr int kMaxUntrustedJsonDepth = 64;

// The value `text` holds, or a discarded value (is_discarded()) when it is not JSON or nests
// deeper than max_depth (checked before nlohmann builds anything).
Json parse_untrusted_json(std::string_view text, int max_depth = kMaxUntrustedJsonDepth);
// The value CBOR `bytes` hold, or nothing when they are not CBOR (or have bytes after the value),
// nest deeper than max_depth (checked before nlohmann builds anything: its reader recurses once per
// level), or hold a byte string where allow_binary is false.
std::optional<Json> parse_untrusted_cbor(const std::vector<std::uint8_t>& bytes, int max_depth, bool allow_binary);
// True when arrays and objects in `text` nest deeper than max_depth (brackets in strings aside).
bool nests_deeper_than(std::string_view text, int max_depth = kMaxUntrustedJsonDepth);

// `v` when it is an integer (not a bool, not a fraction) in [min, max]; unsigned ones included.
std::optional<long long> integer_value(const Json& v, long long min, long long max);

// Typed fields: obj[key] when obj is an object holding key with that type, else nothing.
namespace json_field {
std::optional<bool> boolean(const Json& obj, const char* key);
// An integer (not a bool, not a fraction, not an exponent form that parsed as one) in [min, max].
std::optional<long long> integer(const Json& obj, const char* key, long long min, long long max);
std::optional<std::string> text(const Json& obj, const char* key);
const Json& object(const Json& obj, const char* key);  // an empty object otherwise
const Json& array(const Json& obj, const char* key);   // an empty array otherwise
}  // namespace json_field

// A value as a message shows it: its JSON, cut to `limit` characters ("..." marks the cut).
std::string json_excerpt(const Json& value, std::size_t limit = 80);

}  // namespace srt

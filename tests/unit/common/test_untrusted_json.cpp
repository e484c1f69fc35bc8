// srt/untrusted_json.hpp: the bounds and type checks every reader of another process's JSON uses.
#include <catch2/catch.hpp>

#include <climits>
#include <string>

#include "srt/untrusted_json.hpp"

using namespace srt;

namespace {
std::string nested(int depth) { return std::string(std::size_t(depth), '[') + std::string(std::size_t(depth), ']'); }
}  // namespace

TEST_CASE("nesting: up to the limit is parsed, one level more is refused before parsing", "[json]") {
  CHECK(parse_untrusted_json(nested(kMaxUntrustedJsonDepth)).is_array());
  CHECK(parse_untrusted_json(nested(kMaxUntrustedJsonDepth + 1)).is_discarded());
  CHECK(parse_untrusted_json(nested(1000000)).is_discarded());
  CHECK(parse_untrusted_json("{\"a\": " + nested(3) + "}", 4).is_object());
  CHECK(parse_untrusted_json("{\"a\": " + nested(4) + "}", 4).is_discarded());
  // Brackets inside strings (escaped quotes too) are text, not nesting.
  CHECK(parse_untrusted_json("{\"a\": \"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}").is_object());
  CHECK(parse_untrusted_json("not json").is_discarded());
  CHECK(parse_untrusted_json("").is_discarded());
  CHECK(parse_untrusted_json("1e400").is_discarded());  // beyond double: nlohmann refuses it
}

TEST_CASE("typed fields: the type asked for, or nothing", "[json]") {
  const Json j = Json::parse(R"({"t": true, "n": 7, "neg": -3, "big": 18446744073709551615, "f": 7.5, "e": 1e3,
                                 "s": "x", "o": {"k": 1}, "a": [1]})");
  CHECK(json_field::boolean(j, "t") == true);
  CHECK_FALSE(json_field::boolean(j, "n"));
  CHECK(json_field::integer(j, "n", 0, 10) == 7);
  CHECK_FALSE(json_field::integer(j, "n", 0, 6));
  CHECK_FALSE(json_field::integer(j, "neg", 0, 10));
  CHECK(json_field::integer(j, "neg", -5, 10) == -3);
  CHECK_FALSE(json_field::integer(j, "big", 0, LLONG_MAX));
  CHECK_FALSE(json_field::integer(j, "t", 0, 10));
  CHECK_FALSE(json_field::integer(j, "f", 0, 10));
  CHECK_FALSE(json_field::integer(j, "e", 0, 10000));  // 1e3 parses as a float
  CHECK(json_field::text(j, "s") == "x");
  CHECK_FALSE(json_field::text(j, "n"));
  CHECK(json_field::object(j, "o").size() == 1);
  CHECK(json_field::object(j, "a").empty());
  CHECK(json_field::array(j, "a").size() == 1);
  CHECK(json_field::array(j, "missing").empty());
  CHECK_FALSE(json_field::integer(Json::parse("[1]"), "n", 0, 10));  // not an object at all
  CHECK(integer_value(Json(4294967296LL), INT_MIN, INT_MAX) == std::nullopt);
}

TEST_CASE("an excerpt is cut to its limit", "[json]") {
  CHECK(json_excerpt(Json("abc")) == "\"abc\"");
  const std::string cut = json_excerpt(Json(std::string(1000, 'x')), 20);
  CHECK(cut.size() == 20);
  CHECK(cut.substr(17) == "...");
}

#include "srt/untrusted_json.hpp"

namespace srt {

namespace {

// The deepest nesting of arrays and objects in `text`, stopping once it passes `limit`.
// Brackets inside strings do not count; whether the text is JSON at all is the parser's call.
int nesting(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > limit) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// nlohmann's SAX interface, keeping nothing: only whether the CBOR is well formed and nests no
// deeper than `max_depth`. start_array/start_object returning false stops the reader before it
// recurses, so a million nested arrays cost a million bytes of reading, no stack.
class ShapeCheck : public nlohmann::json_sax<Json> {
 public:
  ShapeCheck(int max_depth, bool allow_binary) : max_depth_(max_depth), allow_binary_(allow_binary) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return allow_binary_; }
  bool start_object(std::size_t) override { return ++depth_ <= max_depth_; }
  bool key(string_t&) override { return true; }
  bool end_object() override { --depth_; return true; }
  bool start_array(std::size_t) override { return ++depth_ <= max_depth_; }
  bool end_array() override { --depth_; return true; }
  bool parse_error(std::size_t, const std::string&, const Json::exception&) override { return false; }

 private:
  int depth_ = 0;
  int max_depth_;
  bool allow_binary_;
};

const Json* find(const Json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace

std::optional<Json> parse_untrusted_cbor(const std::vector<std::uint8_t>& bytes, int max_depth, bool allow_binary) {
  ShapeCheck check(max_depth, allow_binary);
  if (!Json::sax_parse(bytes, &check, Json::input_format_t::cbor)) return std::nullopt;
  try {
    return Json::from_cbor(bytes);
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

bool nests_deeper_than(std::string_view text, int max_depth) { return nesting(text, max_depth) > max_depth; }

Json parse_untrusted_json(std::string_view text, int max_depth) {
  if (nests_deeper_than(text, max_depth)) return Json(Json::value_t::discarded);
  return Json::parse(text.begin(), text.end(), nullptr, false);
}

std::optional<long long> integer_value(const Json& v, long long min, long long max) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<unsigned long long>();
    if (max < 0 || u > static_cast<unsigned long long>(max)) return std::nullopt;
    const auto n = static_cast<long long>(u);
    return n >= min ? std::optional<long long>(n) : std::nullopt;
  }
  if (!v.is_number_integer()) return std::nullopt;
  const auto n = v.get<long long>();
  return n >= min && n <= max ? std::optional<long long>(n) : std::nullopt;
}

namespace json_field {

std::optional<bool> boolean(const Json& obj, const char* key) {
  const Json* v = find(obj, key);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

std::optional<long long> integer(const Json& obj, const char* key, long long min, long long max) {
  const Json* v = find(obj, key);
  return v ? integer_value(*v, min, max) : std::nullopt;
}

std::optional<std::string> text(const Json& obj, const char* key) {
  const Json* v = find(obj, key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

const Json& object(const Json& obj, const char* key) {
  static const Json empty = Json::object();
  const Json* v = find(obj, key);
  return v && v->is_object() ? *v : empty;
}

const Json& array(const Json& obj, const char* key) {
  static const Json empty = Json::array();
  const Json* v = find(obj, key);
  return v && v->is_array() ? *v : empty;
}

}  // namespace json_field

std::string json_excerpt(const Json& value, std::size_t limit) {
  std::string s = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > limit) s = s.substr(0, limit > 3 ? limit - 3 : 0) + "...";
  return s;
}

}  // namespace srt

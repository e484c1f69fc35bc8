// A Json value written as YAML with yaml-cpp's emitter (no hand-written YAML writer), so that
// parse_yaml() (PyYAML's YAML 1.1 rules, as srtctl reads recipes) gives back the same value.
// yaml-cpp decides quoting by YAML 1.2-ish rules of its own: "1", "08:00:00" or "on" would go out
// plain and come back as an int, a sexagesimal int and a bool. So every string whose plain form
// our YAML 1.1 resolver would read as anything else is double-quoted here.
#include <cmath>

#include <yaml-cpp/yaml.h>

#include "srt/document.hpp"
#include "yaml_detail.hpp"

namespace srt {
namespace {

bool reads_back_as(const std::string& text, const Json& want) {
  std::string error;
  const auto got = yaml_detail::resolve_plain(text, error);
  return got && *got == want && got->type() == want.type();
}

// A literal block (`|`) keeps a shell script readable; it clips to one final newline and takes
// its indentation from the first line, so only text that survives those rules goes out that way.
bool literal_ok(const std::string& s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n' || s[0] == ' ' || s[0] == '\n') return false;
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return false;
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if ((s[i] == ' ' || s[i] == '\t') && s[i + 1] == '\n') return false;  // trailing blanks are lost in review diffs; quote instead
  return true;
}

void string(YAML::Emitter& out, const std::string& s, bool key) {
  if (!key && s.find('\n') != std::string::npos && literal_ok(s)) out << YAML::Literal << s;
  else if (!reads_back_as(s, Json(s))) out << YAML::DoubleQuoted << s;
  else out << s;
}

// Python's repr of the double (python_str), which PyYAML reads back as that double, except where
// YAML 1.1's float pattern wants a '.' ("1e-05" would be a string) or spells inf/nan differently.
std::string float_text(double d) {
  if (std::isnan(d)) return ".nan";
  if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  std::string t = python_str(Json(d));
  if (t.find('.') == std::string::npos) {
    const auto e = t.find('e');
    t.insert(e == std::string::npos ? t.size() : e, ".0");
  }
  return t;
}

bool scalar_list(const Json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& x : v)
    if (x.is_structured() || (x.is_string() && x.get<std::string>().find('\n') != std::string::npos)) return false;
  return true;
}

void value(YAML::Emitter& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      out << YAML::BeginMap;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out << YAML::Key;
        string(out, it.key(), true);
        out << YAML::Value;
        value(out, it.value());
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      // Short scalar lists ([4, 8, 16]) read best in flow style, as the recipes write them.
      if (scalar_list(v)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& x : v) value(out, x);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: string(out, v.get<std::string>(), false); break;
    case Json::value_t::boolean: out << v.get<bool>(); break;  // yaml-cpp writes true/false
    case Json::value_t::number_integer: out << v.get<std::int64_t>(); break;
    case Json::value_t::number_unsigned: out << v.get<std::uint64_t>(); break;
    case Json::value_t::number_float: out << float_text(v.get<double>()); break;  // plain: yaml-cpp quotes no number-like text
    default: out << YAML::Null; break;
  }
}

}  // namespace

std::string emit_yaml(const Json& root, const std::string& header_comment) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetOutputCharset(YAML::EmitNonAscii);
  if (!header_comment.empty()) out << YAML::Comment(header_comment) << YAML::Newline;
  value(out, root);
  if (!out.good()) fail("cannot write YAML: " + out.GetLastError());
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

}  // namespace srt

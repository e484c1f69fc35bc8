// Scalars as PyYAML reads them (YAML 1.1 implicit resolvers, SafeConstructor) and prints them.
// srtctl sees exactly these values, so `on` is True, `1e3` is a string and `1:30` is 90.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <regex>
#include <string>

#include "yaml_detail.hpp"

namespace srt::yaml_detail {
namespace {

// The patterns of PyYAML 6.0 resolver.py, verbatim.
const std::regex& float_re() {
  static const std::regex re(
      R"(^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?)"
      R"(|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)"
      R"(|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)"
      R"(|[-+]?\.(?:inf|Inf|INF))"
      R"(|\.(?:nan|NaN|NAN))$)");
  return re;
}
const std::regex& int_re() {
  static const std::regex re(
      R"(^(?:[-+]?0b[0-1_]+)"
      R"(|[-+]?0[0-7_]+)"
      R"(|[-+]?(?:0|[1-9][0-9_]*))"
      R"(|[-+]?0x[0-9a-fA-F_]+)"
      R"(|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$)");
  return re;
}

// Decimal digits with an optional sign and no leading zero: int_re's third branch, and never a
// float (every float pattern has a '.'). Most numbers of a recipe are these, and they resolve
// without running, or even compiling, a std::regex (the regexes were 4 % of a load:
// docs/performance.md).
bool is_plain_decimal(const std::string& s) {
  std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i >= s.size()) return false;
  if (s[i] == '0') return s.size() == i + 1;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// Digits, a dot, digits (0.85): float_re's first branch without underscores or an exponent, the
// floats recipes have. Resolved without the regex too, so that a recipe's floats never compile
// float_re, several million instructions on a process's first load (docs/performance.md).
bool is_plain_fraction(const std::string& s) {
  std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  const std::size_t whole = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == whole || i == s.size() || s[i] != '.') return false;
  for (++i; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool is_bool_true(const std::string& s) {
  return s == "yes" || s == "Yes" || s == "YES" || s == "true" || s == "True" || s == "TRUE" ||
         s == "on" || s == "On" || s == "ON";
}
bool is_bool_false(const std::string& s) {
  return s == "no" || s == "No" || s == "NO" || s == "false" || s == "False" || s == "FALSE" ||
         s == "off" || s == "Off" || s == "OFF";
}
bool is_null(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::string without_underscores(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

// SafeConstructor.construct_yaml_int; int64 only (PyYAML's integers are unbounded, ours are not).
std::optional<Json> construct_int(const std::string& text, std::string& error) {
  std::string v = without_underscores(text);
  bool negative = false;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    negative = v[0] == '-';
    v.erase(0, 1);
  }
  unsigned base = 10;
  std::size_t start = 0;
  bool sexagesimal = v.find(':') != std::string::npos;
  if (v.size() > 1 && v[0] == '0' && (v[1] == 'b' || v[1] == 'x')) {
    base = v[1] == 'b' ? 2 : 16;
    start = 2;
  } else if (v.size() > 1 && v[0] == '0' && !sexagesimal) {
    base = 8;
    start = 1;
  }
  const unsigned __int128 limit = static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
  unsigned __int128 total = 0, part = 0;
  bool any = false;
  for (std::size_t i = start; i <= v.size(); ++i) {
    if (i == v.size() || v[i] == ':') {
      if (sexagesimal) total = total * 60 + part;
      else total = part;
      part = 0;
      if (total > limit) break;
      continue;
    }
    int d = std::isdigit(static_cast<unsigned char>(v[i])) ? v[i] - '0'
            : std::isxdigit(static_cast<unsigned char>(v[i])) ? (std::tolower(v[i]) - 'a' + 10)
                                                              : 99;
    if (d >= static_cast<int>(base)) {
      error = "'" + text + "' is not a valid integer";
      return std::nullopt;
    }
    any = true;
    part = part * base + static_cast<unsigned>(d);
    if (part > limit) {
      total = part;
      break;
    }
  }
  if (!any) {
    error = "'" + text + "' is not a valid integer";
    return std::nullopt;
  }
  if (total > limit) {
    error = "the integer " + text + " is beyond the 64-bit range";
    return std::nullopt;
  }
  if (negative) {
    if (total == limit) return Json(std::numeric_limits<std::int64_t>::min());
    return Json(-static_cast<std::int64_t>(total));
  }
  return Json(static_cast<std::int64_t>(total));
}

// SafeConstructor.construct_yaml_float.
std::optional<Json> construct_float(const std::string& text, std::string& error) {
  std::string v = without_underscores(text);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    if (v[0] == '-') sign = -1;
    v.erase(0, 1);
  }
  if (v == ".inf") return Json(sign * std::numeric_limits<double>::infinity());
  if (v == ".nan") return Json(std::numeric_limits<double>::quiet_NaN());
  if (v.find(':') != std::string::npos) {
    double total = 0;
    std::size_t pos = 0;
    while (true) {
      std::size_t next = v.find(':', pos);
      std::string piece = v.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
      total = total * 60 + std::strtod(piece.c_str(), nullptr);
      if (next == std::string::npos) break;
      pos = next + 1;
    }
    return Json(sign * total);
  }
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size()) {
    error = "'" + text + "' is not a valid float";
    return std::nullopt;
  }
  return Json(sign * d);
}

}  // namespace

std::optional<Json> resolve_plain(const std::string& text, std::string& error) {
  if (is_null(text)) return Json(nullptr);
  const char c = text[0];
  if (std::string("yYnNtTfFoO").find(c) != std::string::npos) {
    if (is_bool_true(text)) return Json(true);
    if (is_bool_false(text)) return Json(false);
  }
  if (std::string("-+0123456789.").find(c) != std::string::npos) {
    if (is_plain_decimal(text)) return construct_int(text, error);
    if (is_plain_fraction(text)) return construct_float(text, error);
    if (text.find('.') != std::string::npos && std::regex_match(text, float_re())) return construct_float(text, error);
    if (c != '.' && std::regex_match(text, int_re())) return construct_int(text, error);
  }
  // Timestamps (PyYAML makes datetime objects) and everything else stay the text as written.
  return Json(text);
}

std::optional<Json> resolve_tagged(const std::string& tag, const std::string& text, bool plain,
                                   std::string& error) {
  static const std::string core = "tag:yaml.org,2002:";
  // Not one conditional expression: Json converts from std::optional<Json> and back, and GCC 16
  // finds `plain ? std::optional<Json> : Json` ambiguous.
  if (tag == "?") {
    if (plain) return resolve_plain(text, error);
    return Json(text);
  }
  if (tag == "!" || tag == core + "str") return Json(text);
  if (tag == core + "null") return Json(nullptr);
  if (tag == core + "bool") {
    std::string lower;
    for (char ch : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "yes" || lower == "true" || lower == "on") return Json(true);
    if (lower == "no" || lower == "false" || lower == "off") return Json(false);
    error = "'" + text + "' is not a valid bool";
    return std::nullopt;
  }
  if (tag == core + "int") return construct_int(text, error);
  if (tag == core + "float") return construct_float(text, error);
  error = "could not determine a constructor for the tag '" + tag +
          "' (PyYAML's safe_load refuses it too)";
  return std::nullopt;
}

}  // namespace srt::yaml_detail

namespace srt {
namespace {

// Python's float repr: the shortest digits that round-trip, fixed notation for
// 1e-4 <= |x| < 1e16, otherwise d.ddde+XX.
std::string python_float(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;  // [-]D[.DDD]e[+-]XX
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  std::size_t e = s.find('e');
  int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (std::size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int decpt = exponent + 1;  // digits[0] sits before position decpt
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
    } else if (static_cast<std::size_t>(decpt) >= digits.size()) {
      out = digits + std::string(static_cast<std::size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<std::size_t>(decpt)) + "." +
            digits.substr(static_cast<std::size_t>(decpt));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp;
  }
  return sign + out;
}

std::string python_repr(const Json& v);

std::string python_quote(const std::string& s) {
  // Python prefers single quotes unless the text contains one and no double quote.
  const bool use_double = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = use_double ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == q) out += std::string("\\") + q;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out + q;
}

std::string python_repr(const Json& v) {
  if (v.is_string()) return python_quote(v.get<std::string>());
  return python_str(v);
}

}  // namespace

std::string python_str(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "None";
    case Json::value_t::boolean: return v.get<bool>() ? "True" : "False";
    case Json::value_t::number_integer: return std::to_string(v.get<std::int64_t>());
    case Json::value_t::number_unsigned: return std::to_string(v.get<std::uint64_t>());
    case Json::value_t::number_float: return python_float(v.get<double>());
    case Json::value_t::string: return v.get<std::string>();
    case Json::value_t::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + python_repr(v[i]);
      return out + "]";
    }
    case Json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out += (first ? "" : ", ") + python_quote(it.key()) + ": " + python_repr(it.value());
        first = false;
      }
      return out + "}";
    }
    default: return v.dump();
  }
}

}  // namespace srt

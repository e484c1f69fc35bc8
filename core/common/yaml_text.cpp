// The text of a recipe or profile before YAML sees it: PyYAML's reader rules (UTF-8, no NUL or
// control characters) and a nesting bound checked on the raw lines, so a hostile file is refused
// before yaml-cpp recurses into it.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "yaml_detail.hpp"

namespace srt::yaml_detail {

std::string normalize_text(const std::string& raw, const std::string& name) {
  std::string out;
  out.reserve(raw.size());
  std::size_t i = 0;
  if (raw.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  int line = 1, column = 1;
  auto bad = [&](const std::string& what, const std::string& hint) {
    fail_at(name, {line, column}, what, hint);
  };
  while (i < raw.size()) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c == '\r') {
      out += '\n';
      i += (i + 1 < raw.size() && raw[i + 1] == '\n') ? 2 : 1;
      ++line;
      column = 1;
      continue;
    }
    if (c == '\n') {
      out += '\n';
      ++i;
      ++line;
      column = 1;
      continue;
    }
    if (c == 0) bad("NUL byte in the text", "this is not a YAML text file");
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7F) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "#x%04x", c);
        bad(std::string("control character ") + hex + " is not allowed in YAML", "remove it");
      }
      out += static_cast<char>(c);
      ++i;
      ++column;
      continue;
    }
    // Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
    int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (len == 0 || c > 0xF4 || i + static_cast<std::size_t>(len) > raw.size())
      bad("invalid UTF-8", "save the file as UTF-8");
    char32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (int k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(raw[i + static_cast<std::size_t>(k)]);
      if ((cc & 0xC0) != 0x80) bad("invalid UTF-8", "save the file as UTF-8");
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      bad("invalid UTF-8", "save the file as UTF-8");
    // PyYAML's Reader refuses C1 controls (except NEL) and the non-characters U+FFFE/U+FFFF.
    if ((cp >= 0x80 && cp < 0xA0 && cp != 0x85) || cp == 0xFFFE || cp == 0xFFFF)
      bad("special character is not allowed in YAML", "remove it");
    out.append(raw, i, static_cast<std::size_t>(len));
    i += static_cast<std::size_t>(len);
    ++column;
  }
  return out;
}

void check_nesting(const std::string& text, const std::string& name, int max_depth) {
  std::vector<int> indents;  // open block levels, by the column their content starts at
  int flow = 0;              // open [ and {
  char quote = 0;            // open ' or " (may span lines)
  bool block_scalar = false;
  int block_indent = 0;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view line(text.data() + pos, eol - pos);
    ++line_no;
    pos = eol + 1;
    std::size_t indent = line.find_first_not_of(' ');
    const bool blank = indent == std::string_view::npos || line[indent] == '#';
    if (block_scalar) {
      if (blank || static_cast<int>(indent) > block_indent) continue;
      block_scalar = false;
    }
    std::size_t i = 0;
    auto too_deep = [&](std::size_t column) {
      if (static_cast<int>(indents.size()) + flow > max_depth) {
        Diagnostic d;
        d.file = name;
        d.mark = {line_no, static_cast<int>(column) + 1};
        d.message = "nesting is deeper than " + std::to_string(max_depth) + " levels";
        d.hint = "a recipe never needs that; this file is refused before it is parsed";
        throw Error(std::move(d));
      }
    };
    if (quote == 0 && flow == 0) {
      if (blank) continue;
      while (!indents.empty() && indents.back() > static_cast<int>(indent)) indents.pop_back();
      if (indents.empty() || indents.back() < static_cast<int>(indent)) indents.push_back(static_cast<int>(indent));
      i = indent;
      // "- - x", "? x", ": x": each indicator opens one more level on the same line.
      while (i + 1 <= line.size() && (line[i] == '-' || line[i] == '?' || line[i] == ':') &&
             (i + 1 == line.size() || line[i + 1] == ' ')) {
        i = line.find_first_not_of(' ', i + 1);
        if (i == std::string_view::npos) i = line.size();
        indents.push_back(static_cast<int>(i));
        too_deep(i);
      }
      too_deep(indent);
    }
    char prev = ' ';  // last non-space character before i on this line (' ' = none)
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (quote == '\'') {
        if (c == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') ++i;
          else quote = 0;
        }
        continue;
      }
      if (quote == '"') {
        if (c == '\\') ++i;
        else if (c == '"') quote = 0;
        continue;
      }
      const bool scalar_start = (i == 0 || line[i - 1] == ' ' || flow > 0) &&
                                (prev == ' ' || prev == ':' || prev == '-' || prev == '?' ||
                                 prev == '[' || prev == '{' || prev == ',');
      if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) break;
      if ((c == '\'' || c == '"') && scalar_start) {
        quote = c;
      } else if ((c == '[' || c == '{') && (flow > 0 || scalar_start)) {
        ++flow;
        too_deep(i);
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      } else if ((c == '|' || c == '>') && flow == 0 && scalar_start) {
        block_scalar = true;
        block_indent = static_cast<int>(indent == std::string_view::npos ? 0 : indent);
        break;
      }
      if (c != ' ' && c != '\t') prev = c;
    }
  }
}

}  // namespace srt::yaml_detail

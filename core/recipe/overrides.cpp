// srtctl's --set key.path=VALUE / --unset key.path on the raw tree, before the schema check, so an
// override is checked exactly like the file. VALUE is YAML (`--set a=[1,2]`, `--set b=on` is True).
#include <cctype>
#include <variant>

#include "overrides.hpp"
#include "srt/recipe.hpp"

namespace srt {
namespace {

using Segment = std::variant<std::string, std::size_t>;  // key, or [index]

[[noreturn]] void bad_override(const std::string& option, std::string message, std::string hint = {}) {
  Diagnostic d;
  d.file = option;
  d.message = std::move(message);
  d.hint = std::move(hint);
  throw Error(std::move(d));
}

std::vector<Segment> parse_path(const std::string& path, const std::string& option) {
  std::vector<Segment> out;
  std::size_t i = 0;
  const std::string hint = "write a dotted path such as backend.atom_config.decode.max-num-seqs or extra_mount[0]";
  while (i < path.size()) {
    if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) bad_override(option, "unclosed or empty [index] in '" + path + "'", hint);
      std::size_t index = 0;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (!std::isdigit(static_cast<unsigned char>(path[k])) || index > 1000000)
          bad_override(option, "'" + path.substr(i, close - i + 1) + "' is not a list index", hint);
        index = index * 10 + static_cast<std::size_t>(path[k] - '0');
      }
      out.emplace_back(index);
      i = close + 1;
      if (i < path.size() && path[i] == '.') ++i;
      continue;
    }
    std::size_t end = path.find_first_of(".[", i);
    if (end == std::string::npos) end = path.size();
    if (end == i) bad_override(option, "empty key in '" + path + "'", hint);
    out.emplace_back(path.substr(i, end - i));
    i = end;
    if (i < path.size() && path[i] == '.') {
      ++i;
      if (i == path.size()) bad_override(option, "the path ends with '.'", hint);
    }
  }
  if (out.empty()) bad_override(option, "no key path", hint);
  return out;
}

// Canonical key path of the first n segments ("a.b[2]").
std::string render(const std::vector<Segment>& segs, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto* k = std::get_if<std::string>(&segs[i])) out = join_path(out, *k);
    else out = index_path(out, std::get<std::size_t>(segs[i]));
  }
  return out;
}

// The parent container of the last segment; creates missing mappings when `create`.
Json* parent_of(Json& root, const std::vector<Segment>& segs, const std::string& option, bool create) {
  Json* cur = &root;
  for (std::size_t i = 0; i + 1 < segs.size(); ++i) {
    if (const auto* k = std::get_if<std::string>(&segs[i])) {
      if (cur->is_null() && create) *cur = Json::object();
      if (!cur->is_object())
        bad_override(option, "'" + render(segs, i) + "' is not a mapping, so it has no key '" + *k + "'");
      if (!cur->contains(*k)) {
        if (!create) return nullptr;
        (*cur)[*k] = Json::object();
      }
      cur = &(*cur)[*k];
    } else {
      const std::size_t index = std::get<std::size_t>(segs[i]);
      if (!cur->is_array()) bad_override(option, "'" + render(segs, i) + "' is not a list");
      if (index >= cur->size()) {
        if (!create) return nullptr;
        bad_override(option, "'" + render(segs, i + 1) + "' is beyond the list's " + std::to_string(cur->size()) + " items");
      }
      cur = &(*cur)[index];
    }
  }
  return cur;
}

}  // namespace

void apply_overrides(Document& doc, const std::vector<std::string>& set, const std::vector<std::string>& unset) {
  recipe_detail::apply_overrides(doc, set, unset, false);
}

void recipe_detail::apply_overrides(Document& doc, const std::vector<std::string>& set,
                                    const std::vector<std::string>& unset, bool set_as_list) {
  for (const auto& spec : set) {
    const std::string option = "--set " + spec;
    const std::size_t eq = spec.find('=');
    if (eq == std::string::npos) bad_override(option, "expected key.path=VALUE");
    const auto segs = parse_path(spec.substr(0, eq), option);
    ReadOptions small;
    small.limits.max_bytes = 64 * 1024;
    small.limits.max_depth = 16;
    small.limits.max_nodes = 10000;
    Json value;
    try {
      value = parse_yaml(spec.substr(eq + 1), option, small).root;
    } catch (const Error& e) {
      bad_override(option, "VALUE is not valid YAML: " + e.diagnostics().front().message);
    }
    if (set_as_list) value = Json::array({std::move(value)});
    if (doc.root.is_null()) doc.root = Json::object();
    Json* parent = parent_of(doc.root, segs, option, true);
    if (const auto* k = std::get_if<std::string>(&segs.back())) {
      if (parent->is_null()) *parent = Json::object();
      if (!parent->is_object())
        bad_override(option, "'" + render(segs, segs.size() - 1) + "' is not a mapping, so it has no key '" + *k + "'");
      (*parent)[*k] = std::move(value);
    } else {
      const std::size_t index = std::get<std::size_t>(segs.back());
      if (!parent->is_array()) bad_override(option, "'" + render(segs, segs.size() - 1) + "' is not a list");
      if (index > parent->size())
        bad_override(option, "index " + std::to_string(index) + " is beyond the list's " + std::to_string(parent->size()) +
                                 " items", "use [" + std::to_string(parent->size()) + "] to append");
      if (index == parent->size()) parent->push_back(std::move(value));
      else (*parent)[index] = std::move(value);
    }
    doc.overrides[render(segs, segs.size())] = option;
  }
  for (const auto& spec : unset) {
    const std::string option = "--unset " + spec;
    const auto segs = parse_path(spec, option);
    Json* parent = doc.root.is_null() ? nullptr : parent_of(doc.root, segs, option, false);
    bool removed = false;
    if (parent) {
      if (const auto* k = std::get_if<std::string>(&segs.back())) {
        removed = parent->is_object() && parent->erase(*k) > 0;
      } else if (parent->is_array() && std::get<std::size_t>(segs.back()) < parent->size()) {
        parent->erase(std::get<std::size_t>(segs.back()));
        removed = true;
      }
    }
    Diagnostic d;
    d.file = option;
    if (!removed) {
      d.message = "there is no such key; nothing was removed";
      d.hint = "check the spelling";
      doc.warnings.push_back(std::move(d));
    }
    doc.overrides[render(segs, segs.size())] = option;
  }
}

}  // namespace srt

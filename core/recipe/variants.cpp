// Variants files, as srtctl 2.0 expands them (SemiAnalysisAI/srt-slurm @ 32ef19f7,
// src/srtctl/core/config.py: deep_merge, _determine_zip_length, _apply_zip_slice,
// expand_zip_override, _expand_wildcard, generate_override_configs). Every variant keeps the
// marks of the lines it came from (base's, or the section's for what the section set), so a
// later error still names file:line:column.
#include "srt/variants.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "overrides.hpp"
#include "srt/join.hpp"
#include "variant_keys.hpp"

namespace srt {
namespace {

using Marks = std::map<std::string, Mark>;

using variant_keys::is_glob;
using variant_keys::kOverride;
using variant_keys::kZip;
using variant_keys::starts_with;

// `key` is `prefix` or lies under it: "a.b" covers "a.b", "a.b.c", "a.b[0]", not "a.bc".
bool under(const std::string& key, const std::string& prefix) {
  if (prefix.empty()) return true;
  if (!starts_with(key, prefix)) return false;
  return key.size() == prefix.size() || key[prefix.size()] == '.' || key[prefix.size()] == '[';
}

std::string rebase(const std::string& key, const std::string& from, const std::string& to) {
  std::string rest = key.substr(from.size());
  if (from.empty() && !rest.empty() && rest[0] != '[') rest.insert(0, ".");
  if (to.empty() && !rest.empty() && rest[0] == '.') rest.erase(0, 1);
  return to + rest;
}

void copy_marks(const Marks& src, const std::string& from, Marks& dst, const std::string& to) {
  for (auto it = src.lower_bound(from); it != src.end() && starts_with(it->first, from); ++it)
    if (under(it->first, from)) dst[rebase(it->first, from, to)] = it->second;
}

void erase_marks(Marks& marks, const std::string& prefix) {
  for (auto it = marks.lower_bound(prefix); it != marks.end() && starts_with(it->first, prefix);)
    it = under(it->first, prefix) ? marks.erase(it) : std::next(it);
}

// srtctl's deep_merge: dicts merge recursively, lists and scalars replace, a null deletes the
// key. A replaced value takes the marks of the section that replaced it.
void deep_merge(Json& out, Marks& out_marks, const std::string& out_path, const Json& over, const Marks& over_marks,
                const std::string& over_path) {
  for (auto it = over.begin(); it != over.end(); ++it) {
    const std::string dst = join_path(out_path, it.key());
    const std::string src = join_path(over_path, it.key());
    if (it.value().is_null()) {  // `frontend:` with no value: the whole base block goes
      out.erase(it.key());
      erase_marks(out_marks, dst);
      continue;
    }
    auto found = out.find(it.key());
    if (it.value().is_object() && found != out.end() && found->is_object()) {
      deep_merge(*found, out_marks, dst, it.value(), over_marks, src);  // `resources: {}` merges nothing
      continue;
    }
    out[it.key()] = it.value();
    erase_marks(out_marks, dst);
    copy_marks(over_marks, src, out_marks, dst);
  }
}

struct ZipList {
  std::string path;
  std::size_t size;
};

void collect_lists(const Json& d, const std::string& path, std::vector<ZipList>& out) {
  for (auto it = d.begin(); it != d.end(); ++it) {
    const std::string child = join_path(path, it.key());
    if (it.value().is_array()) out.push_back({child, it.value().size()});
    else if (it.value().is_object()) collect_lists(it.value(), child, out);
  }
}

const Json& section(const Document& file, const std::string& key) {
  const Json& s = file.root.at(key);
  if (!s.is_object())
    throw Error(file.at(key, "must be a mapping of the keys that differ from base (it is " +
                                 std::string(s.is_null() ? "empty" : s.type_name()) + ")",
                        "indent the keys to change under " + key + ":, or remove it"));
  return s;
}

// srtctl's _determine_zip_length: every list leaf is a dimension; length-1 lists broadcast.
std::size_t zip_length(const Document& file, const std::string& key) {
  std::vector<ZipList> lists;
  collect_lists(section(file, key), key, lists);
  if (lists.empty())
    throw Error(file.at(key, "has no list values, so there is nothing to zip",
                        "write each value that differs between the variants as a list, one item per variant"));
  const ZipList* first = nullptr;
  for (const auto& l : lists) {
    if (l.size == 0) throw Error(file.at(l.path, "is an empty list: a zip cannot make zero variants", "give one item per variant"));
    if (l.size == 1) continue;
    if (!first) first = &l;
    else if (l.size != first->size)
      throw Error(file.at(l.path, "has " + std::to_string(l.size) + " items but " + first->path + " (line " +
                                      std::to_string(file.mark_of(first->path).line) + ") has " + std::to_string(first->size),
                          "every list in a zip_override_ section must have the same length, or length 1 (used by every variant)"));
  }
  return first ? first->size : 1;
}

// srtctl's _apply_zip_slice: each list leaf gives its index-th item (a length-1 list its only
// one; an item that is a list is passed as that list), scalars pass through.
void zip_slice(const Json& d, std::size_t index, const Marks& file_marks, const std::string& src,
               const std::string& dst, Json& out, Marks& out_marks) {
  out = Json::object();
  for (auto it = d.begin(); it != d.end(); ++it) {
    const std::string s = join_path(src, it.key());
    const std::string t = join_path(dst, it.key());
    const Json& v = it.value();
    if (v.is_array()) {
      const std::size_t j = v.size() == 1 ? 0 : index;
      out[it.key()] = v[j];
      copy_marks(file_marks, index_path(s, j), out_marks, t);
    } else if (v.is_object()) {
      if (auto m = file_marks.find(s); m != file_marks.end()) out_marks[t] = m->second;
      zip_slice(v, index, file_marks, s, t, out[it.key()], out_marks);
    } else {
      out[it.key()] = v;
      copy_marks(file_marks, s, out_marks, t);
    }
  }
}

std::string scalar_text(const Json& v) { return v.is_string() ? v.get<std::string>() : (v.is_primitive() ? python_str(v) : v.dump()); }

// base.get("name", "unnamed"), as srtctl names a variant whose section gives no name.
std::string base_name(const Json& base) {
  auto it = base.find("name");
  return it == base.end() ? "unnamed" : scalar_text(*it);
}

Variant from_base(const Document& file) {
  Variant v;
  v.doc.file = file.file;
  v.doc.root = file.root.at("base");
  copy_marks(file.marks, "base", v.doc.marks, "");
  v.doc.warnings = file.warnings;
  v.doc.overrides = file.overrides;
  return v;
}

// The top-level schema: beside base: goes into every variant that does not declare its own
// (generate_override_configs: config.setdefault("schema", raw_config["schema"])).
Variant finish(const Document& file, Variant v) {
  if (auto s = file.root.find("schema"); s != file.root.end() && !v.doc.root.contains("schema")) {
    v.doc.root["schema"] = *s;
    copy_marks(file.marks, "schema", v.doc.marks, "schema");
  }
  if (auto n = v.doc.root.find("name"); n != v.doc.root.end()) v.name = scalar_text(*n);
  return v;
}

Variant expand_override(const Document& file, const std::string& key) {
  const Json& over = section(file, key);
  Variant v = from_base(file);
  v.selector = key;
  v.suffix = key.substr(kOverride.size());
  deep_merge(v.doc.root, v.doc.marks, "", over, file.marks, key);
  if (!over.contains("name")) {
    v.doc.root["name"] = base_name(file.root.at("base")) + "_" + v.suffix;
    v.doc.marks["name"] = file.mark_of(key);
  }
  return finish(file, std::move(v));
}

void expand_zip(const Document& file, const std::string& key, std::vector<Variant>& out,
                std::optional<std::size_t> only = std::nullopt) {
  const std::size_t n = zip_length(file, key);
  const Json& zip = file.root.at(key);
  const std::string group = key.substr(kZip.size());
  if (only && *only >= n) {
    Diagnostic d = file.at(key, "has " + std::to_string(n) + " variant" + (n == 1 ? "" : "s") + ", so [" +
                                    std::to_string(*only) + "] is out of range",
                           "select " + key + "[0] to " + key + "[" + std::to_string(n - 1) + "], or " + key + " for all");
    throw Error(std::move(d));
  }
  // Only a list of names names the variants; a scalar would give them all one name, so srtctl
  // generates the names then too.
  const bool name_list = zip.contains("name") && zip.at("name").is_array();
  for (std::size_t i = only ? *only : 0; i < (only ? *only + 1 : n); ++i) {
    Json sliced;
    Marks sliced_marks;
    zip_slice(zip, i, file.marks, key, "", sliced, sliced_marks);
    Variant v = from_base(file);
    v.selector = key + "[" + std::to_string(i) + "]";
    v.suffix = group + "_" + std::to_string(i);
    deep_merge(v.doc.root, v.doc.marks, "", sliced, sliced_marks, "");
    if (!name_list) {
      v.doc.root["name"] = base_name(file.root.at("base")) + "_" + v.suffix;
      v.doc.marks["name"] = file.mark_of(key);
    }
    out.push_back(finish(file, std::move(v)));
  }
}

struct Keys {
  std::vector<std::string> overrides, zips;
};

Keys section_keys(const Document& file) {
  Keys k;
  for (auto it = file.root.begin(); it != file.root.end(); ++it) {
    if (starts_with(it.key(), kOverride)) k.overrides.push_back(it.key());
    else if (starts_with(it.key(), kZip)) k.zips.push_back(it.key());
  }
  // Python's sorted() on str: code point order, which is UTF-8 byte order (char_traits compares
  // unsigned).
  std::sort(k.overrides.begin(), k.overrides.end());
  std::sort(k.zips.begin(), k.zips.end());
  return k;
}

[[noreturn]] void no_match(const Document& file, const std::string& message) {
  Diagnostic d;
  d.file = file.file;
  d.message = message;
  d.hint = "valid selectors: " + join(variant_selectors(file), ", ") + " (or a glob such as 'override_*'); write FILE:SELECTOR";
  throw Error(std::move(d));
}

// "zip_override_<[\w-]+>[N]" (srtctl's re.fullmatch), split into the key and N.
bool parse_zip_index(const std::string& sel, std::string& key, std::size_t& index) {
  const std::size_t open = sel.rfind('[');
  if (!starts_with(sel, kZip) || open == std::string::npos || sel.back() != ']' || open == kZip.size()) return false;
  for (std::size_t i = kZip.size(); i < open; ++i)
    if (!std::isalnum(static_cast<unsigned char>(sel[i])) && sel[i] != '_' && sel[i] != '-') return false;
  if (open + 2 >= sel.size() || sel.size() - open > 9) return false;
  index = 0;
  for (std::size_t i = open + 1; i + 1 < sel.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(sel[i]))) return false;
    index = index * 10 + std::size_t(sel[i] - '0');
  }
  key = sel.substr(0, open);
  return true;
}

}  // namespace

bool is_variants_document(const Document& doc) { return doc.root.is_object() && doc.root.contains("base"); }

std::vector<std::string> variant_selectors(const Document& file) {
  std::vector<std::string> out = {"base"};
  const Keys k = section_keys(file);
  out.insert(out.end(), k.overrides.begin(), k.overrides.end());
  for (const auto& z : k.zips) {
    out.push_back(z);
    try {
      const std::size_t n = zip_length(file, z);
      for (std::size_t i = 0; i < n; ++i) out.push_back(z + "[" + std::to_string(i) + "]");
    } catch (const Error&) {
      // a malformed group: its own error says why when it is expanded
    }
  }
  return out;
}

std::vector<Variant> expand_variants(const Document& file, const std::string& selector) {
  if (!file.root.at("base").is_object())
    throw Error(file.at("base", "must be a mapping: the recipe every variant starts from",
                        "indent the recipe's keys under base:"));
  const Keys k = section_keys(file);
  std::vector<Variant> out;
  if (selector.empty()) {  // base excluded (srtctl: "all overrides + all zip groups")
    for (const auto& key : k.overrides) out.push_back(expand_override(file, key));
    for (const auto& key : k.zips) expand_zip(file, key, out);
    return out;
  }
  std::string zip_key;
  std::size_t index = 0;
  if (parse_zip_index(selector, zip_key, index)) {
    if (!file.root.contains(zip_key)) no_match(file, "there is no zip group '" + zip_key + "'");
    expand_zip(file, zip_key, out, index);
    return out;
  }
  if (selector == "base") {
    Variant v = from_base(file);
    v.selector = v.suffix = "base";
    out.push_back(finish(file, std::move(v)));
    return out;
  }
  if (is_glob(selector)) {  // over the section keys, sorted together; never base
    std::vector<std::string> all = k.overrides;
    all.insert(all.end(), k.zips.begin(), k.zips.end());
    std::sort(all.begin(), all.end());
    for (const auto& key : all) {
      if (fnmatch(selector.c_str(), key.c_str(), 0) != 0) continue;
      if (starts_with(key, kZip)) expand_zip(file, key, out);
      else out.push_back(expand_override(file, key));
    }
    if (out.empty()) no_match(file, "no variant matches '" + selector + "'");
    return out;
  }
  if (starts_with(selector, kZip)) {
    if (!file.root.contains(selector)) no_match(file, "there is no zip group '" + selector + "'");
    expand_zip(file, selector, out);
    return out;
  }
  if (!starts_with(selector, kOverride) || !file.root.contains(selector))
    no_match(file, "there is no variant '" + selector + "'");
  out.push_back(expand_override(file, selector));
  return out;
}

void apply_variant_overrides(Document& file, const std::vector<std::string>& set, const std::vector<std::string>& unset) {
  if (set.empty() && unset.empty()) return;
  std::vector<std::string> sections = {"base"};
  const Keys k = section_keys(file);
  sections.insert(sections.end(), k.overrides.begin(), k.overrides.end());
  sections.insert(sections.end(), k.zips.begin(), k.zips.end());
  // One section as a Document of its own, so apply_overrides sees the paths a variant has.
  const auto apply = [&](const std::string& key, const std::vector<std::string>& s, const std::vector<std::string>& u) {
    Document part;
    part.file = file.file;
    part.root = std::move(file.root[key]);
    try {
      recipe_detail::apply_overrides(part, s, u, starts_with(key, kZip));
    } catch (const Error& e) {
      file.root[key] = std::move(part.root);
      std::vector<Diagnostic> ds = e.diagnostics();
      for (auto& d : ds) d.message = "in " + key + ": " + d.message;
      throw Error(std::move(ds));
    }
    file.root[key] = std::move(part.root);
    if (key == "base")
      for (auto& [path, option] : part.overrides) file.overrides[path] = option;
    return part.warnings;
  };
  for (const auto& key : sections)
    if (file.root[key].is_object()) apply(key, set, {});
  for (const auto& spec : unset) {
    std::vector<Diagnostic> missing;
    bool removed = false;
    for (const auto& key : sections) {
      if (!file.root[key].is_object()) continue;
      auto warnings = apply(key, {}, {spec});
      if (warnings.empty()) removed = true;
      else missing = std::move(warnings);
    }
    if (!removed)
      for (auto& w : missing) {
        w.message = "there is no such key in base or any override section; nothing was removed";
        file.warnings.push_back(std::move(w));
      }
  }
}

}  // namespace srt

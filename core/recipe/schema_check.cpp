// Checks a Document against a schema table: every unknown key is an error with a suggestion,
// every type and range problem is reported at its key path, and all of them are collected.
#include <algorithm>
#include <cmath>
#include <regex>

#include "schema.hpp"
#include "text_forms.hpp"

namespace srt::schema {

void Issues::error(Diagnostic d) {
  bad_paths.insert(d.key_path);
  errors.push_back(std::move(d));
}

namespace {
// a is b, or an ancestor of b in key-path terms ("x" of "x.y" and "x[0]").
bool covers(const std::string& a, const std::string& b) {
  if (a.empty()) return true;
  return b.compare(0, a.size(), a) == 0 && (b.size() == a.size() || b[a.size()] == '.' || b[a.size()] == '[');
}
}  // namespace

bool Issues::bad(const std::string& path) const {
  for (const auto& p : bad_paths)
    if (covers(p, path) || covers(path, p)) return true;
  return false;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<long long> as_integer(const Json& v) {
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<long long>(d);
    return std::nullopt;
  }
  if (v.is_string()) {  // marshmallow's Integer takes "8"
    static const std::regex re(R"(^\s*[-+]?[0-9]+\s*$)");
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() < 19 && std::regex_match(s, re)) return std::stoll(s);
  }
  return std::nullopt;
}

std::optional<bool> as_boolean(const Json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() && (v.get<long long>() == 0 || v.get<long long>() == 1)) return v.get<long long>() == 1;
  if (v.is_string()) {  // marshmallow's Boolean truthy/falsy sets
    static const std::set<std::string> yes = {"t", "T", "true", "True", "TRUE", "on", "On", "ON", "y", "Y", "yes", "Yes", "YES", "1"};
    static const std::set<std::string> no = {"f", "F", "false", "False", "FALSE", "off", "Off", "OFF", "n", "N", "no", "No", "NO", "0"};
    const auto& s = v.get_ref<const std::string&>();
    if (yes.count(s)) return true;
    if (no.count(s)) return false;
  }
  return std::nullopt;
}

std::string type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "nothing (null)";
    case Json::value_t::boolean: return std::string("the boolean ") + (v.get<bool>() ? "true" : "false");
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "the number " + python_str(v);
    case Json::value_t::string: return "the text '" + v.get<std::string>() + "'";
    case Json::value_t::array: return "a list";
    case Json::value_t::object: return "a mapping";
    default: return "a value";
  }
}

namespace {

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

// Where else in the schema a key of this exact name lives ("resources.gpus_per_node").
void find_elsewhere(const Field& f, const std::string& path, const std::string& key, std::vector<std::string>& out) {
  auto visit = [&](const std::vector<Field>& fields) {
    for (const auto& c : fields) {
      const std::string p = join_path(path, c.key);
      if (c.key == key) out.push_back(p);
      find_elsewhere(c, p, key, out);
    }
  };
  visit(f.fields);
  for (const auto& [type, fields] : f.variants) visit(fields);
}

bool is_noop(const Field& f, const Json& v) {
  if (f.switched_off && f.switched_off(v)) return true;
  if (v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_string() && v.get<std::string>().empty()) ||
      ((v.is_object() || v.is_array()) && v.empty()))
    return !(f.kind == Kind::boolean && f.default_text == "true");
  if (f.kind == Kind::boolean && f.default_text == "true" && as_boolean(v) == true) return true;
  return false;
}

class Checker {
 public:
  Checker(const Document& doc, const Field& root, Issues& issues, std::vector<std::string>& unsupported)
      : doc_(doc), root_(root), issues_(issues), unsupported_(unsupported) {}

  void value(const Field& f, const Json& v, const std::string& path) {
    switch (f.kind) {
      case Kind::object: return object(f, v, path, f.fields, {});
      case Kind::variant: return variant(f, v, path);
      case Kind::string: return text(f, v, path);
      case Kind::integer: return integer(f, v, path);
      case Kind::number:
        if (!v.is_number() && !(v.is_string() && as_integer(v)))
          error(path, "expected a number, got " + type_name(v));
        return;
      case Kind::boolean:
        if (!as_boolean(v)) error(path, "expected true or false, got " + type_name(v));
        return;
      case Kind::dict: return dict(f, v, path);
      case Kind::string_list:
        if (!v.is_array()) return error(path, "expected a list, got " + type_name(v));
        for (std::size_t i = 0; i < v.size(); ++i)
          if (v[i].is_array() || v[i].is_object() || v[i].is_null())
            error(index_path(path, i), "expected text, got " + type_name(v[i]));
        return;
      case Kind::flags: return flags(v, path);
      case Kind::concurrencies: return concurrencies(v, path);
      case Kind::time_limit: return time_limit(v, path);
      case Kind::object_list:
        if (v.is_null()) return;
        if (!v.is_array()) return error(path, "expected a list, got " + type_name(v));
        for (std::size_t i = 0; i < v.size(); ++i) object(f, v[i], index_path(path, i), f.fields, {});
        return;
      case Kind::any: return;
    }
  }

  void some_keys(const Field& f, const std::string& type, const Json& v, const std::string& path,
                 const std::vector<std::string>& keys) {
    const std::vector<Field>* chosen = nullptr;
    for (const auto& [name, vf] : f.variants)
      if (name == type) chosen = &vf;
    std::vector<std::pair<const Field*, const Json*>> todo;
    todo.reserve(keys.size());
    for (const std::string& k : keys) {
      auto it = v.is_object() ? v.find(k) : v.end();
      if (it == v.end()) continue;
      const Field* known = find_in(f.fields, k);
      if (!known && chosen) known = find_in(*chosen, k);
      if (!known) return value(f, v, path);
      todo.emplace_back(known, &*it);
    }
    for (const auto& [known, x] : todo) key(*known, *x, join_path(path, known->key));
  }

  // A key of a mapping whose field is known: recorded as tier 2 when set to something, then checked.
  void key(const Field& known, const Json& x, const std::string& child) {
    if (known.tier == Tier::unsupported && !is_noop(known, x)) unsupported_.push_back(child);
    value(known, x, child);
  }

  // `fields`, then `more` (the chosen variant's own, not copied: a variant is checked on every
  // load, and a Field is a deep structure).
  void object(const Field& f, const Json& v, const std::string& path, const std::vector<Field>& fields,
              const std::vector<std::pair<std::string, const std::vector<Field>*>>& other_variants,
              const std::vector<Field>* more = nullptr) {
    if (v.is_null() && !path.empty() && path.back() != ']') return;  // `frontend:` with nothing under it = not given
    if (!v.is_object()) {
      if (path.empty()) return error(path, "the file is not a mapping of keys (got " + type_name(v) + ")", "a recipe starts with `name:`");
      return error(path, "expected a mapping, got " + type_name(v));
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = join_path(path, it.key());
      const Field* known = find_in(fields, it.key());
      if (!known && more) known = find_in(*more, it.key());
      if (!known) {
        unknown(f, it.key(), child, fields, more, other_variants);
        continue;
      }
      key(*known, it.value(), child);
    }
    for (const std::vector<Field>* list : {&fields, more})
      if (list)
        for (const auto& c : *list)
          if (c.required && !v.contains(c.key))
            error(join_path(path, c.key), "is required", c.doc.empty() ? std::string() : "set it: " + c.doc);
  }

 private:
  void error(const std::string& path, std::string message, std::string hint = {}) {
    issues_.error(doc_.at(path, std::move(message), std::move(hint)));
  }

  static const Field* find_in(const std::vector<Field>& fields, const std::string& key) {
    for (const auto& c : fields)
      if (c.key == key) return &c;
    return nullptr;
  }

  void unknown(const Field& f, const std::string& key, const std::string& child, const std::vector<Field>& fields,
               const std::vector<Field>* more, const std::vector<std::pair<std::string, const std::vector<Field>*>>& other_variants) {
    for (const auto& [type, vf] : other_variants)
      for (const auto& c : *vf)
        if (c.key == key)
          return error(child, "is not a key of " + f.key + ".type '" + doc_value_text(f, child) + "'",
                       "it belongs to " + f.key + ".type: " + type);
    if (&f == &root_) {
      if (key == "base" || key.rfind("override_", 0) == 0 || key.rfind("zip_override_", 0) == 0)
        return error(child, "this is an srtctl override file (base + override_<name>), not a recipe",
                     "resolve one variant first: srtctl resolve-override -f FILE:override_<name> --stdout");
      if (key == "engine" || key == "roles")
        return error(child, "is a key of srt-slurm's 2.0 layout, but the recipe says schema: 1",
                     "write schema: 2 (or backend: and resources:, docs/legacy-v1.md maps one to the other)");
    }
    std::vector<std::string> names;
    for (const auto& c : fields) names.push_back(c.key);
    if (more)
      for (const auto& c : *more) names.push_back(c.key);
    std::string hint;
    const std::string near = nearest(key, names);
    if (!near.empty()) {
      hint = "did you mean '" + near + "'?";
    } else {
      std::vector<std::string> elsewhere;
      find_elsewhere(root_, "", key, elsewhere);
      if (!elsewhere.empty()) hint = "did you mean '" + elsewhere.front() + "'? it belongs there";
      else hint = "srtctl does not know it either; remove it";
    }
    error(child, "unknown key '" + key + "'", hint);
  }

  std::string doc_value_text(const Field&, const std::string& child) {
    const std::string parent = child.substr(0, child.find_last_of('.'));
    const Json* at = &doc_.root;
    std::size_t start = 0;
    while (start < parent.size()) {
      std::size_t dot = parent.find('.', start);
      std::string k = parent.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (!at->is_object() || !at->contains(k)) return "?";
      at = &(*at)[k];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return at->is_object() && at->contains("type") ? python_str((*at)["type"]) : "?";
  }

  void variant(const Field& f, const Json& v, const std::string& path) {
    if (f.type_shorthand && v.is_string())  // `engine: sglang` = `engine: {type: sglang}`
      for (const auto& c : f.fields)
        if (c.key == "type") return text(c, v, path);
    if (!v.is_object()) return object(f, v, path, f.fields, {});
    const std::vector<Field>* chosen = nullptr;
    std::vector<std::pair<std::string, const std::vector<Field>*>> others;
    std::string type = v.contains("type") && v["type"].is_string() ? v["type"].get<std::string>() : "";
    if (!v.contains("type"))  // the default variant (backend: sglang, as srtctl)
      for (const auto& c : f.fields)
        if (c.key == "type") type = c.default_text;
    for (const auto& [name, vf] : f.variants) {
      if (name == type) chosen = &vf;
      else others.emplace_back(name, &vf);
    }
    object(f, v, path, f.fields, others, chosen);
  }

  void text(const Field& f, const Json& v, const std::string& path) {
    if (!v.is_string()) {
      std::string hint = "quote it";
      if (v.is_number_integer() && f.kind == Kind::string && f.key == "time_limit") hint = "";
      if (v.is_array() || v.is_object() || v.is_null()) hint.clear();
      return error(path, "expected text, got " + type_name(v), hint);
    }
    const auto& s = v.get_ref<const std::string&>();
    if (f.choices.empty()) return;
    if (std::find(f.choices.begin(), f.choices.end(), s) == f.choices.end()) {
      std::string all;
      for (const auto& c : f.choices) all += (all.empty() ? "" : ", ") + c;
      const std::string near = nearest(s, f.choices);
      return error(path, "'" + s + "' is not one of: " + all, near.empty() ? "" : "did you mean '" + near + "'?");
    }
    if (f.unsupported_choices.count(s)) unsupported_.push_back(path + "=" + s);
  }

  void integer(const Field& f, const Json& v, const std::string& path) {
    auto n = as_integer(v);
    if (!n) return error(path, "expected a whole number, got " + type_name(v));
    if (f.min && *n < *f.min)
      return error(path, "must be at least " + std::to_string(*f.min) + ", got " + std::to_string(*n));
    if (f.max && *n > *f.max)
      return error(path, "must be at most " + std::to_string(*f.max) + ", got " + std::to_string(*n));
  }

  void dict(const Field& f, const Json& v, const std::string& path) {
    if (v.is_null()) return;
    if (!v.is_object()) return error(path, "expected a mapping of names to values, got " + type_name(v));
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = join_path(path, it.key());
      const Json& x = it.value();
      if (x.is_array() || x.is_object()) error(child, "expected a single value, got " + type_name(x));
      else if (x.is_null() && !f.null_values)
        error(child, "has no value", "write \"\" for an empty value");
      else if (x.is_boolean())
        issues_.warnings.push_back(doc_.at(child, "the boolean " + std::string(x.get<bool>() ? "true" : "false") +
                                                      " becomes the text '" + python_str(x) + "' (as srtctl's str() makes it)",
                                           "quote it if you meant the word as written"));
    }
  }

  void flags(const Json& v, const std::string& path) {
    if (v.is_null()) return;
    if (!v.is_object()) return error(path, "expected a mapping of flag names to values, got " + type_name(v));
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = join_path(path, it.key());
      const Json& x = it.value();
      // A mapping is one JSON argument (vLLM's --speculative-config, --compilation-config,
      // --engram-config parse JSON: vllm/engine/arg_utils.py); a list is the flag's values.
      if (x.is_array())
        for (std::size_t i = 0; i < x.size(); ++i)
          if (x[i].is_array() || x[i].is_object()) error(index_path(child, i), "a flag list holds plain values only",
                                                                    "write a mapping as the flag's value for one JSON argument");
    }
  }

  void concurrencies(const Json& v, const std::string& path) {
    const std::string hint = "give positive numbers: [4, 8, 16] or \"4x8x16\"";
    if (v.is_array()) {
      if (v.empty()) return error(path, "is an empty list", hint);
      for (std::size_t i = 0; i < v.size(); ++i) {
        auto n = v[i].is_boolean() ? std::nullopt : as_integer(v[i]);
        if (!n || *n <= 0) error(index_path(path, i), "expected a positive whole number, got " + type_name(v[i]), hint);
      }
      return;
    }
    if (v.is_string()) {
      if (!is_x_joined_counts(v.get_ref<const std::string&>()))
        error(path, "'" + v.get<std::string>() + "' is not an x-joined list of positive numbers", hint);
      return;
    }
    auto n = v.is_boolean() ? std::nullopt : as_integer(v);
    if (!n || *n <= 0) error(path, "expected concurrencies, got " + type_name(v), hint);
  }

  void time_limit(const Json& v, const std::string& path) {
    const std::string hint = "write it as Slurm does, quoted: \"HH:MM:SS\", \"MM\", \"D-HH:MM\"";
    if (v.is_number_integer() && doc_.origin_of(path).empty()) {
      return error(path, "was read as the number " + python_str(v) +
                             " (YAML 1.1 reads unquoted 1:30:00 as a base-60 number, and srtctl wants text)", hint);
    }
    if (!v.is_string()) return error(path, "expected text, got " + type_name(v), hint);
    if (!is_slurm_time_limit(v.get_ref<const std::string&>())) error(path, "'" + v.get<std::string>() + "' is not a Slurm time limit", hint);
  }

  const Document& doc_;
  const Field& root_;
  Issues& issues_;
  std::vector<std::string>& unsupported_;
};

}  // namespace

void check(const Document& doc, const Field& root, Issues& issues, std::vector<std::string>& unsupported) {
  Checker c(doc, root, issues, unsupported);
  c.object(root, doc.root, "", root.fields, {});
}

void check_value(const Document& doc, const Field& root, const Field& f, const Json& value, const std::string& path,
                 Issues& issues, std::vector<std::string>& unsupported) {
  Checker c(doc, root, issues, unsupported);
  c.value(f, value, path);
}

void check_keys(const Document& doc, const Field& root, const Field& f, const std::string& type, const Json& v,
                const std::string& path, const std::vector<std::string>& keys, Issues& issues,
                std::vector<std::string>& unsupported) {
  Checker c(doc, root, issues, unsupported);
  c.some_keys(f, type, v, path, keys);
}

const Field* find_field(const Field& parent, const std::string& key) {
  for (const auto& c : parent.fields)
    if (c.key == key) return &c;
  return nullptr;
}

}  // namespace srt::schema

#include "flags.hpp"

#include <algorithm>
#include <climits>

#include "srt/error.hpp"
#include "srt/limits.hpp"

namespace srt::plan_detail {

namespace {

std::string scalar_text(const Json& v) {
  // A mapping is one JSON argument (--speculative-config, --hf-overrides), keys as written.
  if (v.is_object() || v.is_array()) return v.dump();
  return python_str(v);
}

void append_value(std::vector<std::string>& out, const std::string& flag, const Json& value,
                  bool repeat_flag_per_item) {
  if (value.is_null() || (value.is_boolean() && !value.get<bool>())) return;
  if (value.is_boolean()) {
    out.push_back(flag);
  } else if (value.is_array()) {
    if (repeat_flag_per_item) {
      for (const auto& item : value) {
        out.push_back(flag);
        out.push_back(scalar_text(item));
      }
    } else {
      out.push_back(flag);
      for (const auto& item : value) out.push_back(scalar_text(item));
    }
  } else {
    out.push_back(flag);
    out.push_back(scalar_text(value));
  }
}

}  // namespace

std::vector<std::string> engine_flags(const Json& config) {
  std::vector<std::string> keys;
  for (auto it = config.begin(); it != config.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());  // Python's sorted() on str: code-point order
  std::vector<std::string> out;
  for (const auto& k : keys) {
    const std::string flag = (!k.empty() && k[0] == '-') ? k : "--" + k;
    append_value(out, flag, config.at(k), false);
  }
  return out;
}

std::vector<std::string> role_flags(const Json& config, const std::function<bool(const std::string&)>& dropped) {
  std::vector<std::string> keys;
  for (auto it = config.begin(); it != config.end(); ++it)
    if (!dropped(it.key())) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> out;
  for (const auto& k : keys) {
    std::string flag = k;
    std::replace(flag.begin(), flag.end(), '_', '-');
    append_value(out, "--" + flag, config.at(k), false);
  }
  return out;
}

std::vector<std::string> frontend_flags(const Json& args) {
  std::vector<std::string> out;
  for (auto it = args.begin(); it != args.end(); ++it) {
    std::string k = it.key();
    std::replace(k.begin(), k.end(), '_', '-');
    append_value(out, "--" + k, it.value(), true);
  }
  return out;
}

std::string normalized_flag(const std::string& key) {
  std::string k = key.substr(std::min(key.find_first_not_of('-'), key.size()));
  std::replace(k.begin(), k.end(), '_', '-');
  return k;
}

const Json* find_flag(const Json& config, const std::vector<std::string>& names) {
  if (!config.is_object()) return nullptr;
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string k = normalized_flag(it.key());
    for (const auto& n : names)
      if (k == n) return &it.value();
  }
  return nullptr;
}

int int_flag(const Json& config, const std::vector<std::string>& names, int fallback) {
  const Json* v = find_flag(config, names);
  if (!v) return fallback;
  // Read whole, never truncated: 4294967298 is not 2.
  const std::optional<std::int64_t> n = whole_number(*v);
  if (!n || *n < INT_MIN || *n > INT_MAX) return fallback;
  return int(*n);
}

int parallel_size(const Json& config, const std::vector<std::string>& names, const std::string& who) {
  const Json* v = find_flag(config, names);
  if (!v || v->is_null()) return 1;
  const std::string problem = parallel_size_problem(*v);
  if (!problem.empty()) {
    const std::string shown = *std::max_element(names.begin(), names.end(),
                                                [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
    fail(who + ": --" + shown + " " + problem, "give the engine's real parallel size");
  }
  return int(*whole_number(*v));
}

bool flag_enabled(const Json& config, const std::vector<std::string>& names) {
  const Json* v = find_flag(config, names);
  return v && !v->is_null() && !(v->is_boolean() && !v->get<bool>());
}

}  // namespace srt::plan_detail

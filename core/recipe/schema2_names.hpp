// Internals of the schema-2 normalizer (not a public header): the names each role has in both
// layouts, made once per process, and a key write that costs no lookup copy.
#pragma once
#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "extract.hpp"

namespace srt::recipe_detail {

// obj[key] = v. ordered_json's operator[] takes its key by value and default-constructs the value
// it then assigns; a load writes a few dozen keys this way.
inline Json& put(Json& obj, const std::string& key, Json v) {
  auto& o = obj.get_ref<Json::object_t&>();
  for (auto& kv : o)
    if (kv.first == key) return kv.second = std::move(v);
  o.emplace_back(key, std::move(v));
  return o.back().second;
}

using Alias = std::pair<std::string, std::string>;  // v1 path -> schema-2 path

// One role's names in both layouts, made once per process: a load concatenates none of them.
struct RoleNames {
  explicit RoleNames(const std::string& r)
      : role(r), mode(mode_of(r)), path("roles." + r), nodes_key(r + "_nodes"), workers_key(r + "_workers"),
        gpus_key("gpus_per_" + r), critical_key(r + "_critical"), env_key(mode + "_environment"),
        extra_key(mode + "_extra_args"), nodes{"resources." + nodes_key, path + ".nodes"},
        workers{"resources." + workers_key, path + ".workers"}, gpus{"resources." + gpus_key, path + ".gpus"},
        critical{"resources." + critical_key, path + ".critical"}, env{"backend." + env_key, path + ".env"},
        extra{"backend." + extra_key, path + ".extra_args"}, kv_events_config{"backend.kv_events_config." + mode, path + ".kv_events"},
        enable_kv_events{"backend.enable_kv_events", path + ".kv_events"}, args(path + ".args") {}
  std::string role, mode, path;                                 // prefill, prefill, roles.prefill
  std::string nodes_key, workers_key, gpus_key, critical_key;  // resources.<these>
  std::string env_key, extra_key;                               // backend.<these>
  Alias nodes, workers, gpus, critical, env, extra, kv_events_config, enable_kv_events;
  std::string args;  // the v1 side of its alias names the engine: backend.<engine>_config.<mode>
};

// resources.<v1 role size key> -> roles.<role>.<key> (schema2_layout.cpp), for the keys
// `resources` has, in its order; with_critical adds <role>_critical.
void legacy_resources(const Json& root, std::vector<std::pair<std::string, std::string>>& out, bool with_critical);

// The v1-only keys srtctl's require_current_schema refuses, each with its schema-2 spelling.
std::vector<std::pair<std::string, std::string>> legacy_keys(const Json& root);

// services[i] at `path` (schema2_services.cpp): srtctl's rules for a service entry; a generic
// one's name a plain word unique among `names`, and what srt-spank cannot run of it added to
// `unsupported`.
void check_service(const Json& s, const std::string& path, const Document& doc, schema::Issues& issues,
                   std::vector<std::string>& unsupported, std::set<std::string>& names);

inline const std::array<RoleNames, 3>& role_names() {
  static const std::array<RoleNames, 3> names{RoleNames("prefill"), RoleNames("decode"), RoleNames("agg")};
  return names;
}

}  // namespace srt::recipe_detail

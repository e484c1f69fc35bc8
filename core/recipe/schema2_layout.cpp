// Which layout a recipe is in, and the v1 keys a schema-2 recipe may still carry (srtctl 2.0
// core/config.py; its require_current_schema after v2.2.1): the schema-2 normalizer's questions
// about the layout, apart from the normalizing itself (schema2_normalize.cpp).
#include <string_view>

#include "extract.hpp"
#include "schema2_names.hpp"

namespace srt::recipe_detail {
namespace {

// `key` == a + b, without making a + b.
bool is_concat(const std::string& key, std::string_view a, std::string_view b) {
  return key.size() == a.size() + b.size() && key.compare(0, a.size(), a) == 0 && key.compare(a.size(), b.size(), b) == 0;
}

}  // namespace

// A key-by-key walk of what is there: a schema-2 recipe's resources holds two or three keys, and
// none of them is a role size key unless the recipe mixes the layouts.
void legacy_resources(const Json& root, std::vector<std::pair<std::string, std::string>>& out, bool with_critical) {
  const Json* r = get(root, "resources");
  if (!r || !r->is_object()) return;
  for (auto it = r->begin(); it != r->end(); ++it) {
    const std::string& key = it.key();
    for (std::string_view role : {"prefill", "decode", "agg"}) {
      const char* v2 = is_concat(key, role, "_nodes")     ? "nodes"
                       : is_concat(key, role, "_workers") ? "workers"
                       : is_concat(key, "gpus_per_", role) ? "gpus"
                       : with_critical && is_concat(key, role, "_critical") ? "critical"
                                                                            : nullptr;
      if (v2) out.emplace_back("resources." + key, "roles." + std::string(role) + "." + v2);
    }
  }
}

// The v1-only keys srtctl's require_current_schema (core/config.py, after v2.2.1) refuses, each
// with what schema 2 spells instead (docs/legacy-v1.md's table).
std::vector<std::pair<std::string, std::string>> legacy_keys(const Json& root) {
  std::vector<std::pair<std::string, std::string>> out;
  if (get(root, "backend")) out.emplace_back("backend", "engine: (type and engine-wide knobs) and roles.<role>.env/args");
  if (get(root, "infra"))
    out.emplace_back("infra", "services: [{name: etcd, type: etcd, placement: {node: dedicated}}, {name: nats, ...}]");
  legacy_resources(root, out, true);
  for (const char* k : {"orchestrator_placement", "dedicated_node"})
    if (get(root, "frontend") && get(root["frontend"], k)) out.emplace_back(std::string("frontend.") + k, "frontend.placement.node");
  for (const char* k : {"client_placement", "client_dedicated_node"})
    if (get(root, "benchmark") && get(root["benchmark"], k)) out.emplace_back(std::string("benchmark.") + k, "benchmark.placement.node");
  for (const auto& [k, v2] : std::vector<std::pair<std::string, std::string>>{
           {"version", "dynamo.source.pypi"}, {"hash", "dynamo.source.git + rev"}, {"wheel", "dynamo.source.wheel"},
           {"cargo_patches", "dynamo.source.patches"}})
    if (get(root, "dynamo") && get(root["dynamo"], k)) out.emplace_back("dynamo." + k, v2);
  return out;
}

int detect_layout(const Document& doc, schema::Issues& issues, bool current_schema) {
  const Json& root = doc.root;
  int layout = 1;
  if (const Json* s = get(root, "schema")) {
    auto v = s->is_boolean() ? std::nullopt : schema::as_integer(*s);
    if (v && *v == 2) layout = 2;
    else if (v && *v != 1)  // a bool or text is the table's type error
      issues.error(doc.at("schema", "schema " + std::to_string(*v) + " is not supported", "srt-slurm knows schema 1 and 2"));
  }
  // 2.0's normalizers run whatever the version says, so engine:/roles: without schema: load too.
  if (layout == 1 && !get(root, "schema") && (get(root, "engine") || get(root, "roles"))) layout = 2;
  if (current_schema && !(get(root, "schema") && layout == 2)) {
    issues.error(doc.at(get(root, "schema") ? "schema" : "", "schema 1 recipes no longer load with --current-schema",
                        "add schema: 2 and the 2.x keys (srtctl migrate -f FILE rewrites a v1 recipe)"));
    if (layout == 1)
      for (const auto& [path, v2] : legacy_keys(root))
        issues.error(doc.at(path, "is a v1 key; --current-schema refuses it", "write " + v2 + " instead"));
  }
  return layout;
}

}  // namespace srt::recipe_detail

// Loading a recipe: read -> overrides -> schema check -> typed model -> cross-field rules.
// Every problem is collected and thrown together, so one run shows the user all of them.
#include "srt/recipe.hpp"

#include <algorithm>

#include "extract.hpp"

namespace srt {

const Json& Backend::config(WorkerMode m) const {
  switch (m) {
    case WorkerMode::prefill: return prefill_config;
    case WorkerMode::decode: return decode_config;
    case WorkerMode::agg: break;
  }
  return aggregated_config;
}

const EnvList& Backend::environment(WorkerMode m) const {
  switch (m) {
    case WorkerMode::prefill: return prefill_environment;
    case WorkerMode::decode: return decode_environment;
    case WorkerMode::agg: break;
  }
  return aggregated_environment;
}

int Resources::gpus_per_worker(WorkerMode m, int default_gpus_per_node) const {
  const int gpn = gpus_per_node > 0 ? gpus_per_node : (default_gpus_per_node > 0 ? default_gpus_per_node : 4);
  switch (m) {
    case WorkerMode::prefill:
      return gpus_per_prefill > 0 ? gpus_per_prefill : (prefill_workers > 0 ? prefill_nodes * gpn / prefill_workers : 0);
    case WorkerMode::decode:
      if (gpus_per_decode > 0) return gpus_per_decode;
      if (decode_nodes_given && decode_nodes == 0) return gpus_per_worker(WorkerMode::prefill, default_gpus_per_node);
      return decode_workers > 0 ? decode_nodes * gpn / decode_workers : 0;
    case WorkerMode::agg: break;
  }
  const int workers = agg_workers > 0 ? agg_workers : 1;
  return gpus_per_agg > 0 ? gpus_per_agg : std::max(agg_nodes, 1) * gpn / workers;
}

Recipe recipe_from_document(Document doc, int default_gpus_per_node, bool current_schema) {
  Recipe r;
  if (doc.root.is_null()) {
    Diagnostic d;
    d.file = doc.file;
    d.message = "YAML file is empty";
    d.hint = "a recipe needs at least name, model, resources, backend";
    throw Error(std::move(d));
  }
  schema::Issues issues;
  if (recipe_detail::detect_layout(doc, issues, current_schema) == 2) {
    schema::check(doc, schema::recipe_schema_v2(), issues, r.unsupported_keys);
    r.source = recipe_detail::normalize_v2(std::move(doc), current_schema, issues, r.unsupported_keys, r.per_role);
  } else {
    r.source = std::move(doc);
    schema::check(r.source, schema::recipe_schema(), issues, r.unsupported_keys);
    recipe_detail::check_v1_services(r.source, issues, r.unsupported_keys);
  }
  recipe_detail::extract(r);
  const int gpn = r.resources.gpus_per_node > 0 ? r.resources.gpus_per_node : default_gpus_per_node;
  recipe_detail::check_rules(r, gpn, issues, r.unsupported_keys);
  recipe_detail::check_safe_text(r.source, issues);
  // Tier-2 entries in the user's spelling ("backend.type=vllm" of a schema-2 recipe is
  // "engine=vllm"), each once: the schema-2 table and the v1 check of what it became both see some.
  std::vector<std::string> unsupported;
  for (const auto& u : r.unsupported_keys) {
    const std::size_t eq = u.find('=');
    std::string w = r.source.written_path(u.substr(0, eq)) + (eq == std::string::npos ? "" : u.substr(eq));
    if (std::find(unsupported.begin(), unsupported.end(), w) == unsupported.end()) unsupported.push_back(std::move(w));
  }
  r.unsupported_keys = std::move(unsupported);
  for (auto& w : issues.warnings) r.source.warnings.push_back(std::move(w));
  if (!issues.errors.empty()) throw Error(std::move(issues.errors));
  return r;
}

EnvList srun_options_of(const Recipe& r, const std::string& role) {
  EnvList out = r.srun_options;
  const auto own = r.per_role.srun_options.find(role);
  if (own == r.per_role.srun_options.end()) return out;
  for (const auto& option : own->second) {
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == option.first; });
    if (same != out.end()) same->second = option.second;
    else out.push_back(option);
  }
  return out;
}

}  // namespace srt

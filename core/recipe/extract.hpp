// Internals of the recipe loader shared by its files (not a public header).
#pragma once
#include <algorithm>
#include <string>

#include "schema.hpp"
#include "srt/recipe.hpp"

namespace srt::recipe_detail {

// The value at `key` of a mapping; null when `v` is no mapping or the key is absent or null (a
// YAML `~` means "not set" in srtctl's layouts). J is Json or const Json: the schema-2 normalizer
// moves a few values out of the recipe it owns.
template <typename J>
J* get(J& v, const std::string& key) {
  if (!v.is_object()) return nullptr;
  auto it = v.find(key);
  return it == v.end() || it->is_null() ? nullptr : &*it;
}

// A flag or srun option key as the programs compare them: leading dashes dropped, '_' as '-'
// ("--tensor_parallel_size" -> "tensor-parallel-size", "container_mounts" -> "container-mounts").
inline std::string flag_name(const std::string& key) {
  std::string k = key.substr(std::min(key.find_first_not_of('-'), key.size()));
  std::replace(k.begin(), k.end(), '_', '-');
  return k;
}

// A role as v1 names its mode and the `<mode>_*` keys: agg -> aggregated, the others as they are.
inline std::string mode_of(const std::string& role) { return role == "agg" ? "aggregated" : role; }

// The layout a recipe is in: 1 (v1) or 2 (`schema: 2`, or engine:/roles: without schema:, which
// srtctl 2.0 loads too). Reports an unsupported `schema:` value, and with current_schema a recipe
// that is not `schema: 2` (srtctl's require_current_schema, after v2.2.1).
int detect_layout(const Document& doc, schema::Issues& issues, bool current_schema);

// A schema-2 Document (already checked against recipe_schema_v2()) as the v1-shaped Document the
// rest of the loader reads, with Document::aliases naming the schema-2 paths; 2.x's own rules.
Document normalize_v2(Document doc, bool current_schema, schema::Issues& issues, std::vector<std::string>& unsupported,
                      RoleOverrides& per_role);

// A v1-layout recipe's `services:` list, checked as a schema-2 one's (schema2_services.cpp).
void check_v1_services(const Document& doc, schema::Issues& issues, std::vector<std::string>& unsupported);

// Fills the typed fields of `r` from r.source.root (already schema-checked).
void extract(Recipe& r);

// srtctl's cross-field rules and srt-spank's own; gpus_per_node = 0 when unknown
// (the rules that need it then wait for the profile).
void check_rules(const Recipe& r, int gpus_per_node, schema::Issues& issues, std::vector<std::string>& unsupported);

// Keys, names and paths that reach argv, environments, pyxis's mount list and file names
// (srun_options, sbatch_directives, every environment, container_mounts, extra_mount, name).
void check_safe_text(const Document& doc, schema::Issues& issues);

}  // namespace srt::recipe_detail

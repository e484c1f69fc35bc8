// Internals of the recipe loader shared by its files (not a public header).
#pragma once
#include "schema.hpp"
#include "srt/recipe.hpp"

namespace srt::recipe_detail {

// Fills the typed fields of `r` from r.source.root (already schema-checked).
void extract(Recipe& r);

// srtctl's cross-field rules (reference 4.2) and srt-spank's own; gpus_per_node = 0 when unknown
// (the rules that need it then wait for the profile).
void check_rules(const Recipe& r, int gpus_per_node, schema::Issues& issues, std::vector<std::string>& unsupported);

// Keys, names and paths that reach argv, environments, pyxis's mount list and file names
// (srun_options, sbatch_directives, every environment, container_mounts, extra_mount, name).
void check_safe_text(const Document& doc, schema::Issues& issues);

}  // namespace srt::recipe_detail

// srt-slurm variants files: a top-level `base:` plus `override_<s>:` and `zip_override_<g>:`
// sections, each expanding into one or more standalone recipes (NVIDIA/srt-slurm docs/overrides.md
// @ 6fdfb80d; srtctl 2.0 `core/config.py`, generate_override_configs). And `FILE:SELECTOR`, the
// way a command line names one variant or a group of them (`srtctl apply -f file.yaml:<sel>`).
//
// Pure: Documents in, Documents out. Reading files and checking that a path exists belong to
// the callers (helper, plugin).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "srt/document.hpp"
#include "srt/recipe.hpp"

namespace srt {

// A variants file is a mapping with a top-level `base` key (srtctl's detection, nothing more).
bool is_variants_document(const Document& doc);

struct Variant {
  std::string selector;  // what selects exactly this one: "override_x", "zip_override_g[2]", "base"
  std::string suffix;    // srtctl's suffix: "x", "g_2", "base" (resolve-override's file names)
  std::string name;      // the variant's `name` after expansion ("" when it has none)
  Document doc;          // the standalone recipe; marks point at the lines of the file it came from
};

// The variants `selector` picks, in srtctl's order. selector "" = every override_* (sorted by
// key), then every zip_override_* (sorted), base excluded. Throws srt::Error (file:line:column,
// key path) on a malformed section, or on a selector that matches nothing (listing the valid
// ones). The file's --set/--unset must already be applied (apply_variant_overrides).
std::vector<Variant> expand_variants(const Document& file, const std::string& selector = "");

// Every selector the file accepts, for messages: "base", each override_*, each zip_override_*
// and "zip_override_g[0]".."[N-1]" (when the group's length can be computed).
std::vector<std::string> variant_selectors(const Document& file);

// Whether `text` has a selector's shape: "base", "override_...", "zip_override_...", or a glob
// (contains * or ?), and no '/'. Only such a suffix after the last ':' can be a selector.
bool looks_like_selector(const std::string& text);

struct RecipeRef {
  std::string path;      // the file to read
  std::string selector;  // "" = none given
  std::string given;     // the argument as written (SRT_RECIPE shows it)
};

// "FILE[:SELECTOR]": the part after the last ':' is a selector only when it has a selector's
// shape, the whole argument is not itself an existing file, and FILE exists (`exists` decides;
// the caller does the file system check). Anything else is a path as written.
RecipeRef split_recipe_ref(const std::string& arg, const std::function<bool(const std::string&)>& exists);

// srtctl's --set/--unset on a variants file (srtctl 2.0's core/overrides.py): a --set is
// written into `base` and every override_*, and inside every zip_override_* as a one-element list
// (so it broadcasts); an --unset removes the key everywhere (a warning only when it was nowhere).
// file.overrides gets the key paths as the variants see them.
void apply_variant_overrides(Document& file, const std::vector<std::string>& set, const std::vector<std::string>& unset);

// What a recipe argument stands for: one recipe (a plain file, or a variants file with a
// selector that picks one) or several (a variants file without a selector, or a group/glob).
struct RecipeSource {
  std::string given;     // for messages: "FILE", or "FILE:<this variant's selector>"
  std::string selector;  // the variant's own selector ("" for a plain recipe)
  std::string name;      // the variant's name ("" for a plain recipe)
  Document doc;          // ready for recipe_from_document
};

// Parses `text` (read from ref.path), applies opts.set/unset and expands. A plain recipe with a
// selector is an error; a variants file gives one RecipeSource per selected variant.
std::vector<RecipeSource> open_recipe_text(const std::string& text, const RecipeRef& ref, const RecipeOptions& opts);

// A variant as the text of a plain recipe (JSON is YAML, and PyYAML reads it the same way): what
// the plugin's snapshot carries, so the nodes never re-read the variants file.
std::string variant_text(const RecipeSource& source);

// recipe_from_document for one source; a variant's diagnostics say which variant they are in.
Recipe load_recipe_source(RecipeSource source, const RecipeOptions& opts);

}  // namespace srt

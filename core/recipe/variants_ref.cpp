// FILE:SELECTOR and opening a recipe argument: the edge between a command line and the variants
// expansion (variants.cpp). Pure: the caller reads the file and says which paths exist.
#include <string>
#include <vector>

#include "srt/variants.hpp"
#include "variant_keys.hpp"

namespace srt {
namespace {

using variant_keys::is_glob;
using variant_keys::kOverride;
using variant_keys::kZip;
using variant_keys::starts_with;

}  // namespace

bool looks_like_selector(const std::string& text) {
  if (text.empty() || text.find('/') != std::string::npos) return false;
  return text == "base" || starts_with(text, kOverride) || starts_with(text, kZip) || is_glob(text);
}

RecipeRef split_recipe_ref(const std::string& arg, const std::function<bool(const std::string&)>& exists) {
  RecipeRef ref{arg, "", arg};
  const std::size_t colon = arg.rfind(':');
  if (colon == std::string::npos || colon == 0) return ref;
  const std::string file = arg.substr(0, colon), selector = arg.substr(colon + 1);
  // A file whose name really ends in ":override_x" is that file; the split is only for a
  // selector after an existing file.
  if (!looks_like_selector(selector) || exists(arg) || !exists(file)) return ref;
  ref.path = file;
  ref.selector = selector;
  return ref;
}

std::vector<RecipeSource> open_recipe_text(const std::string& text, const RecipeRef& ref, const RecipeOptions& opts) {
  Document doc = parse_yaml(text, ref.path, opts.read);
  std::vector<RecipeSource> out;
  if (!is_variants_document(doc)) {
    if (!ref.selector.empty()) {
      Diagnostic d;
      d.file = ref.path;
      d.message = "':" + ref.selector + "' selects a variant, but this is not a variants file (it has no top-level base:)";
      d.hint = "name the file alone";
      throw Error(std::move(d));
    }
    apply_overrides(doc, opts.set, opts.unset);
    out.push_back(RecipeSource{ref.given, "", "", std::move(doc)});
    return out;
  }
  // srtctl reads only base, schema and the sections; anything else would be silently lost.
  for (auto it = doc.root.begin(); it != doc.root.end(); ++it)
    if (it.key() != "base" && it.key() != "schema" && !starts_with(it.key(), kOverride) && !starts_with(it.key(), kZip))
      doc.warnings.push_back(doc.at(it.key(), "ignored: a variants file has only base, schema, override_* and zip_override_* "
                                              "at the top (srtctl ignores this key too)",
                                    "move it under base: for every variant, or into a section"));
  apply_variant_overrides(doc, opts.set, opts.unset);
  std::vector<Variant> variants = expand_variants(doc, ref.selector);
  if (variants.empty()) {
    Diagnostic d;
    d.file = ref.path;
    d.mark = doc.mark_of("base");
    d.message = "a variants file with base: and no override_* or zip_override_* section expands to no recipe "
                "(srtctl submits nothing for it)";
    d.hint = "select the base itself with " + ref.path + ":base, or add override_<name>: sections";
    throw Error(std::move(d));
  }
  for (auto& v : variants) out.push_back(RecipeSource{ref.path + ":" + v.selector, v.selector, v.name, std::move(v.doc)});
  return out;
}

std::string variant_text(const RecipeSource& source) {
  return "# " + source.given + " (" + source.name + "), expanded\n" + source.doc.root.dump(2) + "\n";
}

Recipe load_recipe_source(RecipeSource source, const RecipeOptions& opts) {
  if (source.selector.empty()) return recipe_from_document(std::move(source.doc), opts.default_gpus_per_node, opts.read.current_schema);
  try {
    return recipe_from_document(std::move(source.doc), opts.default_gpus_per_node, opts.read.current_schema);
  } catch (const Error& e) {
    std::vector<Diagnostic> ds = e.diagnostics();
    for (auto& d : ds) d.message = "in variant " + source.selector + ": " + d.message;
    throw Error(std::move(ds));
  }
}

}  // namespace srt

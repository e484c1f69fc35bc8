// The recipe and the profile from YAML text: the submit side, srt-helper and the tests. Apart from
// the rest of the loaders so that what a node links (the models from the snapshot's JSON
// Documents, docs/design.md "The snapshot") never references parse_yaml, and slurmstepd never maps
// yaml-cpp.
#include "srt/digest.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"

namespace srt {

Recipe load_recipe_text(const std::string& text, const std::string& name, const RecipeOptions& opts) {
  Document doc = parse_yaml(text, name, opts.read);
  apply_overrides(doc, opts.set, opts.unset);
  return recipe_from_document(std::move(doc), opts.default_gpus_per_node, opts.read.current_schema);
}

Profile load_profile_text(const std::string& bytes, const std::string& name, const ReadOptions& opts) {
  Profile p = profile_from_document(parse_yaml(bytes, name, opts));
  p.digest = sha256_hex(bytes);
  return p;
}

}  // namespace srt

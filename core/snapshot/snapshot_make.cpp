// The snapshot of a recipe the submit side (or launch --dry-run) has just read. Apart from
// snapshot.cpp because a variant's text is YAML-world code the nodes must not link.
#include "srt/snapshot.hpp"
#include "srt/variants.hpp"

namespace srt {

Snapshot make_snapshot(const std::string& recipe_path, const std::string& file_text, const RecipeSource& source,
                       const Profile& profile, const std::string& package) {
  Snapshot s;
  s.recipe_path = recipe_path;
  s.package = package;
  s.profile_digest = profile.digest;
  // The built-in default has no document: a node without a profile file plans with its own.
  if (!profile.digest.empty()) s.profile = profile.source.root;
  s.recipe = source.doc.root;
  if (source.selector.empty()) {
    s.recipe_text = file_text;
  } else {
    // The nodes never re-read the file: the expanded variant (JSON is YAML, read the same way),
    // and which one it is.
    s.recipe_text = variant_text(source);
    s.variant_selector = source.selector;
    s.variant_name = source.name;
  }
  return s;
}

}  // namespace srt

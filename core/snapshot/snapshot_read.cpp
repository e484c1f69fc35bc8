// What a node (and the launcher) makes of a decoded snapshot: the recipe and the profile models,
// built from the documents the submit side read, through the same checks. No YAML here: this is
// what slurmstepd links (docs/design.md "The snapshot").
#include "srt/error.hpp"
#include "srt/job_plan.hpp"
#include "srt/snapshot.hpp"

namespace srt {

Recipe snapshot_recipe(const Snapshot& s, const Profile& profile) {
  Document doc;
  doc.file = s.recipe_path.empty() ? "<recipe>" : s.recipe_path;
  doc.root = s.recipe;
  // The submit side read it with job_recipe_options(profile): the same default, nothing else.
  return recipe_from_document(std::move(doc), job_recipe_options(profile).default_gpus_per_node);
}

Profile snapshot_profile(const Snapshot& s, const std::string& local_digest, const Json& local_document,
                         const std::string& local_path, const std::string& where) {
  if (local_digest != s.profile_digest) {
    const auto shown = [](const std::string& d) { return d.empty() ? std::string("none: the built-in default") : d.substr(0, 12); };
    fail("the cluster profile on " + where + " differs from the one the job was checked against (digest " +
             shown(local_digest) + " here" + (local_path.empty() ? "" : ", " + local_path) + "; " +
             shown(s.profile_digest) + " at submit)",
         "the cluster admin must install the same profile on every node and login host");
  }
  if (local_digest.empty()) return default_profile();
  Document doc;
  doc.file = local_path;
  doc.root = local_document;
  Profile p = profile_from_document(std::move(doc));
  p.digest = local_digest;
  return p;
}

}  // namespace srt

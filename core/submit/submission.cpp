#include "srt/submission.hpp"

#include "srt/error.hpp"
#include "srt/job_plan.hpp"

namespace srt {

void refuse_several_variants(const RecipeRef& ref, const std::vector<RecipeSource>& sources, const std::string& command,
                             const std::string& name_one) {
  std::string list;
  for (const auto& s : sources) list += (list.empty() ? "" : ", ") + s.selector;
  Diagnostic d;
  d.file = ref.path;
  const std::string count = std::to_string(sources.size());
  d.message = ref.selector.empty()
                  ? "this is a variants file with " + count + " variants, and " + command + " runs one"
                  : "':" + ref.selector + "' selects " + count + " variants, and " + command + " runs one";
  d.hint = "name one as " + name_one + ref.path + ":SELECTOR; the variants: " + list;
  throw Error(std::move(d));
}

Submission make_submission(const std::string& given, const RecipeRef& ref, const std::string& file_text,
                           const Profile& profile, const std::string& package, const std::string& name_one) {
  const RecipeOptions ro = job_recipe_options(profile);  // as every node will read it
  std::vector<RecipeSource> sources = open_recipe_text(file_text, ref, ro);
  if (sources.size() != 1) refuse_several_variants(ref, sources, "a job", name_one);
  Submission out;
  // The nodes plan from the document read here (no YAML on the nodes), checked again there.
  out.snapshot = make_snapshot(given, file_text, sources.front(), profile, package);
  // Read from the variant itself, so a refusal names the user's file and variant.
  (void)plan_submission(load_recipe_source(std::move(sources.front()), ro), given, profile);
  out.encoded = encode_snapshot(out.snapshot);
  return out;
}

}  // namespace srt

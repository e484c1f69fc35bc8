// What a job submitted with a recipe carries, made in one place for the three that make it: the
// plugin's submit side (sbatch/salloc/srun --srt-recipe), `srt-helper snapshot` and
// `srt-helper launch --dry-run`, so that a dry run plans exactly what a job would, and refuses
// what a submit refuses.
#pragma once
#include <string>
#include <vector>

#include "srt/profile.hpp"
#include "srt/snapshot.hpp"
#include "srt/variants.hpp"

namespace srt {

struct Submission {
  Snapshot snapshot;
  std::string encoded;  // encode_snapshot(snapshot): what the job's environment carries
};

// `given`: the recipe as the user named it (FILE or FILE:SELECTOR; the snapshot's recipe_path),
// `ref` its split, `file_text` the bytes of ref.path. Reads the recipe as every node will
// (job_recipe_options), refuses a variants file unless one variant is named, refuses what the
// Plan refuses (plan_submission) and a snapshot over kMaxSnapshotBytes; throws srt::Error.
// `name_one` prefixes the hint's PATH:SELECTOR ("--srt-recipe=" where sbatch reads it).
Submission make_submission(const std::string& given, const RecipeRef& ref, const std::string& file_text,
                           const Profile& profile, const std::string& package, const std::string& name_one = "");

// A recipe argument that stands for several variants where `command` ("a job", "plan") runs
// one: throws srt::Error naming the file, the variants, and how to name one
// (`name_one`PATH:SELECTOR).
[[noreturn]] void refuse_several_variants(const RecipeRef& ref, const std::vector<RecipeSource>& sources,
                                          const std::string& command, const std::string& name_one = "");

}  // namespace srt

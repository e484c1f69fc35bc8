// How the validated recipe travels from the submit host to every node and to the launcher: the
// snapshot, SLURM_SPANK_SRT_SNAPSHOT in the job's environment (docs/design.md "The snapshot").
//
// Format 2 carries the recipe and the profile as the submit side read them (JSON
// values, YAML's meaning already decided), so a node plans without a YAML parser: slurmstepd
// never maps yaml-cpp. The node still checks everything again (schema, rules, the Plan): the
// snapshot is the user's environment and proves nothing by itself. The profile's document in it
// is what the submit side read; a node plans with its own file's (snapshot_profile).
#pragma once
#include <string>

#include "srt/document.hpp"
#include "srt/profile.hpp"
#include "srt/recipe.hpp"
#include "srt/snapshot_env.h"  // SRT_SNAPSHOT_JOB_ENV: where a job carries it

namespace srt {

struct RecipeSource;

// 1: JSON with the recipe's YAML text (srt-spank before the node library). 2: CBOR with the documents.
inline constexpr int kSnapshotFormat = 2;
// One line of base64 in an environment variable: Linux refuses an execve whose single
// environment string is over 128 KiB, so the whole snapshot stays well under that.
inline constexpr std::size_t kMaxSnapshotBytes = 96 * 1024;

struct Snapshot {
  std::string recipe_path;     // as the user gave it (SRT_RECIPE)
  std::string recipe_text;     // the bytes that were validated (the job's results keep them)
  Json recipe;                 // those bytes as read (a variant expanded): what nodes plan from
  std::string profile_digest;  // sha256 of the submit side's profile file ("" = built-in default)
  Json profile;                // that profile as read (null for the built-in default)
  // A variants file's variant (--srt-recipe=FILE:SELECTOR): recipe_text is then the expanded
  // variant, not the file. "" for a plain recipe.
  std::string variant_selector;  // "override_x", "zip_override_g[2]", "base"
  std::string variant_name;      // its `name` after expansion
  std::string package;           // the srt-spank version that wrote it ("0.1.0")
};

// What the submit side (and launch --dry-run) carries for one recipe it read: `source` from
// open_recipe_text, `file_text` the bytes of the file it came from.
Snapshot make_snapshot(const std::string& recipe_path, const std::string& file_text, const RecipeSource& source,
                       const Profile& profile, const std::string& package);

// One line of base64 over CBOR (CBOR keeps what YAML reads that JSON text cannot: .nan, .inf),
// with a SHA-256 of the content that decode checks. encode throws srt::Error when the result
// would be over kMaxSnapshotBytes.
std::string encode_snapshot(const Snapshot& s);
// Throws srt::Error on anything malformed, on nesting deeper than a recipe can be (checked
// before anything is built), and on another format, saying which srt-spank wrote it.
Snapshot decode_snapshot(const std::string& encoded);

// Nodes and the launcher plan only from a snapshot written by their own srt-spank version: two
// versions may plan the same recipe differently, and every process of the job must agree on the
// Plan. Throws srt::Error naming both versions and `where` ("node gpu03", "the launcher").
void check_snapshot_package(const Snapshot& s, const std::string& mine, const std::string& where);

// The recipe as every node reads it: the snapshot's document through the same schema check,
// typed model and rules as at submit (the profile's gpus_per_node is the default).
Recipe snapshot_recipe(const Snapshot& s, const Profile& profile);

// The profile a node plans with: its own file's digest (`local_digest`, "" = no file, the
// built-in default) must be the one the job was submitted with, and the node plans with its own
// file's document (`local_document`: root's parsed copy, srt/profile_copy.hpp), never with the
// snapshot's, which the job's user can rewrite with any digest. Throws srt::Error naming both
// digests and `where`.
Profile snapshot_profile(const Snapshot& s, const std::string& local_digest, const Json& local_document,
                         const std::string& local_path, const std::string& where);

}  // namespace srt

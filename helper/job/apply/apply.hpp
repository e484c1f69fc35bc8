// srt-helper apply: srtctl's `apply` as InferenceX's srt driver calls it (`srtctl apply ... -f R
// --file R --json --yes`), on top of `srt-helper submit`. One job per apply, a manifest srtctl's
// readers accept, and the sweep log <output_dir>/logs/sweep_<jobid>.log in place before the job
// can start. The flags and records follow srtctl v2.18's `src/srtctl/cli/submit.py` (`main`,
// `_record_submission`) and its generated docs/cli-reference.md.
#pragma once
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace srt::apply {

struct ApplyRequest {
  std::string file;                     // -f/--file FILE[:SELECTOR], the last one given
  std::string output;                   // -o/--output DIR ("" = the profile's)
  std::string profile;                  // --profile (srt-spank's; srtctl has none)
  std::vector<std::string> set, unset;  // --set/--unset, as given
  std::string tags;                     // --tags a,b
  std::string setup_script;             // --setup-script NAME
  bool json = false, yes = false, no_preflight = false;
  // srtctl flags srt-spank does not honour: refused with the reason (refusals()).
  bool sweep = false, serve_only = false, mock = false;
  std::optional<double> mock_tick_s;
};

// Why each given flag cannot be honoured, one entry per flag; empty when every flag is.
std::vector<std::string> refusals(const ApplyRequest& request);

// "a, b ,,c" -> ["a", "b", "c"]: srtctl splits --tags on ',', strips, drops empties.
std::vector<std::string> split_tags(const std::string& tags);

// The selector of a -f argument that reads the recipe from standard input ("-" or "/dev/stdin",
// then ":SELECTOR" or nothing: "", split as every recipe argument is: split_recipe_ref); nullopt
// for any other argument.
std::optional<std::string> stdin_selector(const std::string& file);

// A recipe from standard input, at most the loader's limit; throws srt::Error when it is larger
// or holds nothing.
std::string read_stdin_recipe(std::istream& in);

// The recipe a -f argument stands for: FILE[:SELECTOR] unchanged, a directory holding exactly
// one *.yaml/*.yml (recursively, as srtctl walks one) as that file; throws srt::Error otherwise
// (a directory with several recipes would submit several jobs, and an apply is one job).
std::string resolve_file_argument(const std::string& file);

struct Submission {
  std::uint64_t job_id = 0;
  std::string job_name;                 // $RUNNER_NAME, else the recipe's name (the Slurm job name)
  std::string output_dir;               // absolute: <output base>/<jobid>
  std::string config_path;              // what was submitted (a temporary file with --set/--unset;
                                        // <output_dir>/config.yaml for -f -)
  std::vector<std::string> tags;        // --tags; empty = none given
  std::vector<std::string> applied_overrides;  // "set K=V" / "unset K", only with --set/--unset
};

// srtctl's one-line record of a submitted job (`_record_submission`): status, slurm_job_id (a
// string), job_name, output_dir, metadata_path, config_path, tags (null when none), and
// applied_overrides when --set/--unset were given.
nlohmann::json manifest(const Submission& s);
// {"status": "error", "error": MESSAGE}: what srtctl writes before exiting 1.
nlohmann::json error_record(const std::string& message);

// Submits the job (held), makes <output_dir>/logs/sweep_<jobid>.log where only this user can
// write, writes <output_dir>/<jobid>.json, releases the job. Prose goes to stderr. Throws
// srt::Error (the held job cancelled) when any step fails.
Submission apply(const ApplyRequest& request);

}  // namespace srt::apply

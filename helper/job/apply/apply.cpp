#include "apply.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <utility>

#include "../run/run.hpp"
#include "srt/document.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"
#include "srt/join.hpp"
#include "srt/runner_config.hpp"
#include "srt/process.hpp"
#include "srt/recipe_files.hpp"
#include "srt/this_host.hpp"
#include "srt/variants.hpp"
#include "srt/safe_dir.hpp"

namespace srt::apply {

namespace fs = std::filesystem;

std::vector<std::string> refusals(const ApplyRequest& r) {
  std::vector<std::string> why;
  if (r.sweep)
    why.push_back("--sweep: srt-spank submits one job per apply; give one variant as -f FILE:SELECTOR");
  if (r.serve_only)
    why.push_back("--serve-only: srt-spank's launcher always runs the recipe's benchmark and ends the job after it");
  if (r.mock || r.mock_tick_s)
    why.push_back("--mock/--mock-tick-s: srt-spank has no local stand-in for sbatch; use the lab (tests/cluster)");
  return why;
}

std::vector<std::string> split_tags(const std::string& tags) { return split_list(tags); }

std::optional<std::string> stdin_selector(const std::string& file) {
  const auto is_stdin = [](const std::string& path) { return path == "-" || path == "/dev/stdin"; };
  const RecipeRef ref = split_recipe_ref(file, is_stdin);  // FILE[:SELECTOR] as every recipe argument
  if (!is_stdin(ref.path)) return std::nullopt;
  return ref.selector;
}

std::string read_stdin_recipe(std::istream& in) {
  const std::size_t limit = LoadLimits{}.max_bytes;
  std::string text(limit + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  if (text.size() > limit)
    fail("-f -: the recipe on standard input is larger than " + std::to_string(limit >> 10) + " KiB",
         "recipes are a few KB: give the right file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    fail("-f -: standard input held no recipe", "pipe the recipe in (srtctl apply -f - < recipe.yaml), or give its path");
  return text;
}

std::string resolve_file_argument(const std::string& file) {
  std::error_code ec;
  if (!fs::is_directory(file, ec)) return file;
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(file, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) found.push_back(it->path().string());
  }
  if (found.size() == 1) return found.front();
  std::sort(found.begin(), found.end());
  std::string names;
  for (const auto& f : found) names += "\n  " + f;
  fail("-f " + file + ": the directory holds " + std::to_string(found.size()) +
           " recipes, and an apply submits exactly one job" + names,
       "name one recipe file (FILE or FILE:SELECTOR)");
}

nlohmann::json manifest(const Submission& s) {
  nlohmann::json m = {{"status", "submitted"},
                      {"slurm_job_id", std::to_string(s.job_id)},
                      {"job_name", s.job_name},
                      {"output_dir", s.output_dir},
                      {"metadata_path", s.output_dir + "/" + std::to_string(s.job_id) + ".json"},
                      {"config_path", s.config_path},
                      {"tags", s.tags.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.tags)}};
  if (!s.applied_overrides.empty()) m["applied_overrides"] = s.applied_overrides;
  return m;
}

nlohmann::json error_record(const std::string& message) { return {{"status", "error"}, {"error", message}}; }

namespace {

std::string absolute(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) ? std::string(resolved) : fs::absolute(path).lexically_normal().string();
}

// Ends a held job that cannot be released as it should (its sweep log could not be made).
void cancel(std::uint64_t job_id) {
  int status = 0;
  sys::run_capture({"scancel", std::to_string(job_id)}, 30, &status, true);
}

// <base>/<jobid>/logs/sweep_<jobid>.log, each directory opened and checked on its descriptor
// (ours, writable by nobody else) and the log created without following a link: slurmstepd
// opens the batch step's --output by path and would follow one planted there.
void make_sweep_log(const std::string& base, std::uint64_t job_id) {
  const helper::SafeDir::Purpose purpose{"job directory", "remove it or choose another output_dir"};
  const auto root = helper::SafeDir::open(base, {"output directory", "create it, or choose another output_dir"}, false);
  if (!root) fail("the output directory " + base + " is missing", "create it, or choose another output_dir");
  const auto job = root->sub(std::to_string(job_id), true);
  if (!job) fail("cannot create the job directory " + root->path_of(std::to_string(job_id)), purpose.remedy);
  const auto logs = job->sub("logs", true);
  if (!logs) fail("cannot create " + job->path_of("logs"), purpose.remedy);
  logs->append_file("sweep_" + std::to_string(job_id) + ".log");
}

// <base>/<jobid>, made by make_sweep_log, opened again on its descriptor (never through a link).
helper::SafeDir reopen_job_dir(const std::string& base, std::uint64_t job_id) {
  const auto root = helper::SafeDir::open(base, {"output directory", "choose another output_dir"}, false);
  auto job = root ? root->sub(std::to_string(job_id), false) : std::nullopt;
  if (!job) fail("the job directory " + base + "/" + std::to_string(job_id) + " is gone");
  return std::move(*job);
}

// <base>/<jobid>/config.yaml, the recipe as given on standard input; its path.
std::string write_config(const std::string& base, std::uint64_t job_id, const std::string& text) {
  const helper::SafeDir job = reopen_job_dir(base, job_id);
  job.write_file("config.yaml", text, 0644);
  return job.path_of("config.yaml");
}

void write_metadata(const std::string& base, const Submission& s) {
  nlohmann::json meta = manifest(s);
  meta.erase("status");
  reopen_job_dir(base, s.job_id).write_file(std::to_string(s.job_id) + ".json", meta.dump(2) + "\n", 0644);
}

// The runner's srtslurm.yaml where srtctl looks for it from the working directory (./, ../,
// ../../; core/config.py find_cluster_config_path), read against the admin's profile at
// `admin_path` ("" = the built-in default). $SRTSLURM_CONFIG is not looked at here: to srt-helper
// it names the profile itself (this_host.hpp). None when there is no such file, or it is the
// admin's profile.
// Only a file this user (or root) wrote is read, in a directory nobody else can write: its aliases
// name the images the job runs, and a file planted in a shared parent (/tmp/srtslurm.yaml above a
// checkout in /tmp/a/b) would choose them for whoever runs apply below it.
bool owned_here(const struct stat& st) {
  return (st.st_uid == ::geteuid() || st.st_uid == 0) && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

std::optional<RunnerConfig> runner_config(const std::string& admin_path) {
  for (const char* dir : {".", "..", "../.."}) {
    const fs::path file = fs::path(dir) / "srtslurm.yaml";
    std::error_code ec;
    struct stat f {}, d {};
    if (::lstat(file.c_str(), &f) != 0) continue;
    if (!S_ISREG(f.st_mode) || ::stat(dir, &d) != 0 || !owned_here(f) || !owned_here(d)) {
      std::fprintf(stderr,
                   "note: %s: not read: a runner's srtslurm.yaml must be a regular file of this user's (or root's), "
                   "in a directory only they can write\n",
                   absolute(file.string()).c_str());
      return std::nullopt;
    }
    if (!admin_path.empty() && fs::equivalent(file, admin_path, ec)) return std::nullopt;
    const Document runner = load_yaml_file(absolute(file.string()));
    const Json admin = admin_path.empty() ? Json::object() : load_yaml_file(admin_path).root;
    return read_runner_config(runner, admin.is_object() ? admin : Json::object());
  }
  return std::nullopt;
}

}  // namespace

Submission apply(const ApplyRequest& r) {
  const auto refused = refusals(r);
  if (!refused.empty()) {
    std::string all;
    for (const auto& w : refused) all += (all.empty() ? "" : "; ") + w;
    fail(all);
  }
  if (r.file.empty()) fail("no recipe: give -f FILE[:SELECTOR]");
  if (r.no_preflight) std::fprintf(stderr, "note: --no-preflight: srt-spank probes no image at submit; nothing to skip\n");

  run::SubmitRequest req;
  // -f - (srtctl v2 reads the recipe from standard input): the text goes to a file of this
  // user's alone for the submit (the plugin snapshots the recipe at sbatch, so the file need not
  // outlive it), and into the job directory as config.yaml, which the manifest then names.
  std::optional<helper::TempDir> stdin_dir;
  std::string stdin_text;
  if (const auto selector = stdin_selector(r.file)) {
    stdin_text = read_stdin_recipe(std::cin);
    stdin_dir.emplace("srt-stdin.");
    stdin_dir->dir().write_file("stdin.yaml", stdin_text, 0600);
    req.dash_f = stdin_dir->dir().path_of("stdin.yaml") + (selector->empty() ? "" : ":" + *selector);
  } else {
    req.dash_f = resolve_file_argument(r.file);
  }
  req.profile = r.profile;
  req.set = r.set;
  // srtctl's --setup-script overrides the recipe's setup_script (SRTCTL_SETUP_SCRIPT in
  // do_sweep.main): the last --set, its name as a YAML string whatever it looks like.
  if (!r.setup_script.empty()) req.set.push_back("setup_script=" + Json(r.setup_script).dump());
  req.unset = r.unset;
  // Held until the sweep log exists: the batch step opens its --output when it starts, and
  // Slurm makes no directory for it.
  req.sbatch_extra = {"--hold"};
  const Profile profile = helper::load_profile(r.profile);
  req.runner = runner_config(helper::find_profile_path(r.profile));
  if (req.runner && !req.runner->ignored.empty()) {
    std::string keys;
    for (const auto& k : req.runner->ignored) keys += (keys.empty() ? "" : ", ") + k;
    std::fprintf(stderr,
                 "note: %s: ignored, the cluster profile decides them (the plugin plans every job against it): %s\n",
                 req.runner->file.c_str(), keys.c_str());
  }
  const std::string base_given = profile.output_dir.empty() ? profile.results_root : profile.output_dir;
  if (base_given.empty()) fail("the cluster profile sets neither output_dir nor results_root", "ask the admin to set one");
  const std::string base = absolute(base_given);
  // The job directory is planned by the plugin from the profile (it is mounted at /logs and
  // checked on every node): a run cannot move it.
  if (!r.output.empty() && absolute(r.output) != base)
    std::fprintf(stderr,
                 "note: -o %s: the job directory is the cluster profile's (%s/<jobid>); output_dir in the manifest says "
                 "where it is\n",
                 r.output.c_str(), base.c_str());
  req.output = base + "/%j/logs/sweep_%j.log";

  const run::Submitted submitted = run::submit(req);
  Submission s;
  s.job_id = submitted.job_id;
  const char* runner = std::getenv("RUNNER_NAME");
  s.job_name = runner && *runner ? runner : submitted.recipe.name;
  s.output_dir = base + "/" + std::to_string(s.job_id);
  // srtctl's config_path is the file it submitted: with --set/--unset a temporary one, gone by now.
  s.config_path = submitted.recipe_file == req.dash_f ? absolute(helper::recipe_ref(req.dash_f).path) : submitted.recipe_file;
  s.tags = split_tags(r.tags);
  for (const auto& kv : r.set) s.applied_overrides.push_back("--set " + kv);
  for (const auto& k : r.unset) s.applied_overrides.push_back("--unset " + k);
  try {
    make_sweep_log(base, s.job_id);
    if (stdin_dir) s.config_path = write_config(base, s.job_id, stdin_text);
    write_metadata(base, s);
    int status = 0;
    const std::string out = sys::run_capture({"scontrol", "release", std::to_string(s.job_id)}, 60, &status, true);
    if (status != 0) fail("scontrol release " + std::to_string(s.job_id) + " failed (exit " + std::to_string(status) + "): " + out);
  } catch (const Error&) {
    cancel(s.job_id);
    throw;
  }
  return s;
}

}  // namespace srt::apply

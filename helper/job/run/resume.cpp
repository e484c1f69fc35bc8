// run --resume: the points an earlier job left missing or failed, run again by a new job with the
// same recipe content and profile, and merged into the earlier results tree so that `report`
// reads it as one sweep. The merged layout: RESULTS/JOBID/fixed-seq/ holds one file per point
// (a resumed point's file is the new job's, under its own name), status.json's
// benchmark_points.<N>.resumed_by names the job that produced it and "resumed_by" lists every
// such job; each new job also keeps its own tree, RESULTS/<new job>/, as any job does.
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "srt/safe_dir.hpp"
#include "run.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"

namespace srt::run {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const std::string& dir, const std::string& why, const std::string& hint) {
  Diagnostic d;
  d.file = dir;
  d.message = "cannot resume: " + why;
  d.hint = hint;
  throw Error(std::move(d));
}

const helper::SafeDir::Purpose kResumed{
    "results tree to resume", "resume only a tree you own that nobody else can write (chmod go-w), or run the recipe again"};

Json read_json(const helper::SafeDir& dir, const std::string& name) {
  const std::optional<std::string> text = dir.read_file(name, 16 << 20);
  if (!text) refuse(dir.path(), name + " is missing or not a regular file", "pass RESULTS/JOBID of a job srt-helper launch ran");
  Json j = Json::parse(*text, nullptr, false);
  if (!j.is_object()) refuse(dir.path_of(name), "not a JSON object", "the file was edited; run the recipe again");
  return j;
}

std::string text_at(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Resume read_resume(const std::string& dir_path, const Profile& profile) {
  const std::optional<helper::SafeDir> dir = helper::SafeDir::open(dir_path, kResumed, false);
  if (!dir) refuse(dir_path, "no such directory", "pass RESULTS/JOBID: the results tree of the earlier job");
  Resume r;
  r.dir = dir_path;
  // A duplicate of the SafeDir's descriptor, which closes with it: the lock lasts while this does.
  auto lock = std::make_shared<const UniqueFd>(::fcntl(dir->fd(), F_DUPFD_CLOEXEC, 0));
  if (lock->get() < 0 || ::flock(lock->get(), LOCK_EX | LOCK_NB) != 0)
    refuse(dir_path, "another `srt-helper run --resume` of this tree is running (it holds its lock)",
           "wait for it to end; its job resumes the same points");
  r.lock = std::move(lock);
  const Json status = read_json(*dir, "status.json");
  const Json plan = read_json(*dir, "plan.json");
  if (const auto id = status.find("job_id"); id != status.end() && id->is_number_unsigned()) r.job_id = id->get<std::uint64_t>();
  if (const auto p = plan.find("benchmark_points"); p != plan.end() && p->is_array())
    for (const auto& c : *p)
      if (c.is_number_integer() && c.get<long long>() > 0 && c.get<long long>() < 1000000000) r.grid.push_back(c.get<int>());
  if (r.grid.empty())
    refuse(dir_path, "job " + std::to_string(r.job_id) + " ran its benchmark as one step for the whole grid (its command does not read " +
                         kBenchmarkPointsVariable + "), so no single point can be run again",
           "loop over ${" + std::string(kBenchmarkPointsVariable) + ":-<grid>} in benchmark.command and run the recipe again");

  const std::optional<std::string> recipe = dir->read_file("recipe.yaml", 4 << 20);
  if (!recipe) {
    const std::string kind = dir->kind_of("recipe.yaml");
    if (kind == "missing") refuse(dir_path, "it holds no recipe.yaml", "the job predates run --resume; run the recipe again");
    refuse(dir->path_of("recipe.yaml"), "it is a " + kind + ", not a regular file (nothing in a results tree is followed)",
           "put the job's own recipe.yaml back, or run the recipe again");
  }
  if (sha256_hex(*recipe) != text_at(status, "recipe_digest"))
    refuse(dir->path_of("recipe.yaml"), "it is not the recipe job " + std::to_string(r.job_id) +
                                            " ran (its SHA-256 differs from status.json's recipe_digest)",
           "put the job's own recipe.yaml back, or run the recipe again");
  r.recipe_text = *recipe;
  const std::string was = text_at(status, "profile_digest");
  if (was != profile.digest)
    refuse(dir_path, "the cluster profile changed since job " + std::to_string(r.job_id) + " (digest " + was.substr(0, 12) +
                         " then, " + profile.digest.substr(0, 12) + " now): its points would not be comparable",
           "resume with the profile the job ran with (--profile), or run the recipe again");

  // The one validity gate, on what the tree holds now.
  const std::map<int, std::string> found = find_result_files(dir_path);
  for (int c : r.grid) {
    const auto f = found.find(c);
    if (f == found.end() || !judge_point(c, f->second).problem.empty()) r.points.push_back(c);
  }
  return r;
}

std::vector<int> merge_resume(const Resume& r, const Collected& fresh, std::uint64_t new_job) {
  const std::optional<helper::SafeDir> dir = helper::SafeDir::open(r.dir, kResumed, false);
  if (!dir) refuse(r.dir, "it is gone", "the new job's results stay in " + fresh.dir);
  const std::optional<helper::SafeDir> from_root = helper::SafeDir::open(fresh.dir, kResumed, false);
  const std::optional<helper::SafeDir> from = from_root ? from_root->sub("fixed-seq", false) : std::nullopt;
  const std::optional<helper::SafeDir> to = dir->sub("fixed-seq", true);
  const std::map<int, std::string> found = find_result_files(fresh.dir);
  const std::map<int, std::string> earlier = find_result_files(r.dir);
  Json status = read_json(*dir, "status.json");
  Json fresh_status = from_root ? Json::parse(from_root->read_file("status.json").value_or("{}"), nullptr, false) : Json();
  auto section = [](Json& j, const char* key) -> Json& {
    if (!j[key].is_object()) j[key] = Json::object();
    return j[key];
  };
  Json& points = section(status, "benchmark_points");
  Json& codes = section(status, "benchmark_exit_codes");
  for (const PointResult& p : fresh.points) {
    if (std::find(r.points.begin(), r.points.end(), p.concurrency) == r.points.end()) continue;
    const std::string key = std::to_string(p.concurrency);
    Json note = {{"resumed_by", new_job}};
    const auto file = found.find(p.concurrency);
    std::string why;
    if (p.problem.empty() && file != found.end() && from &&
        helper::copy_file(*from, fs::path(file->second).filename().string(), *to, fs::path(file->second).filename().string(), &why)) {
      note["state"] = "ok";
      // The earlier job's file for this point, under its own name, would stand beside its
      // replacement as a second result for one point: it goes to fixed-seq/superseded/.
      const auto old = earlier.find(p.concurrency);
      const std::string old_name = old == earlier.end() ? "" : fs::path(old->second).filename().string();
      if (!old_name.empty() && old_name != fs::path(file->second).filename().string() && to->kind_of(old_name) == "regular") {
        const std::optional<helper::SafeDir> aside = to->sub("superseded", true);
        if (aside && ::renameat(to->fd(), old_name.c_str(), aside->fd(), old_name.c_str()) == 0)
          note["superseded"] = "fixed-seq/superseded/" + old_name;
      }
    } else {
      note["state"] = "failed";
      note["reason"] = !p.problem.empty() ? p.problem : "not merged: " + why;
      // The new job's own verdict, when it has one (stalled, not run).
      if (fresh_status.is_object() && fresh_status.contains("benchmark_points") &&
          fresh_status["benchmark_points"].is_object() && fresh_status["benchmark_points"].contains(key) &&
          fresh_status["benchmark_points"][key].is_object())
        note = fresh_status["benchmark_points"][key], note["resumed_by"] = new_job;
    }
    if (fresh_status.is_object() && fresh_status.contains("benchmark_exit_codes") &&
        fresh_status["benchmark_exit_codes"].is_object() && fresh_status["benchmark_exit_codes"].contains(key))
      codes[key] = fresh_status["benchmark_exit_codes"][key];
    else
      codes.erase(key);
    points[key] = std::move(note);
  }
  if (!status["resumed_by"].is_array()) status["resumed_by"] = Json::array();
  status["resumed_by"].push_back(new_job);

  std::vector<int> left;
  const std::map<int, std::string> now = find_result_files(r.dir);
  for (int c : r.grid) {
    const auto f = now.find(c);
    if (f == now.end() || !judge_point(c, f->second).problem.empty()) left.push_back(c);
  }
  if (left.empty()) {
    status["state"] = "completed";
    status["reason"] = "every point valid after resume by job " + std::to_string(new_job);
  }
  dir->write_file("status.json", status.dump(2) + "\n");
  return left;
}

}  // namespace srt::run

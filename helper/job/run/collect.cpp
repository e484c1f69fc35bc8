#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "srt/collector_rules.hpp"
#include "srt/expected_points.hpp"
#include "srt/result_files.hpp"
#include "srt/safe_dir.hpp"
#include "run.hpp"
#include "srt/error.hpp"

namespace srt::run {

namespace fs = std::filesystem;

namespace {

std::string result_base(const Recipe& recipe) {
  if (const char* env = std::getenv("RESULT_FILENAME"); env && *env) return env;
  return recipe.name;
}

// A <jobid> someone else made before the job (job ids are sequential, squeue shows them) holds
// whatever they put there: forged results, symlinks into this user's home. The launcher refuses
// to run in one; run refuses to collect from one.
const helper::SafeDir::Purpose kJobResults{
    "job's results directory",
    "remove it or choose another results_root (or output_dir) in the cluster profile; in a shared results_root "
    "only its owner or an administrator can remove it"};

// status.json's state and reason; empty when the launcher never wrote it (the job died first).
void read_launcher_status(const helper::SafeDir& dir, Collected& c) {
  const std::optional<std::string> text = dir.read_file("status.json");
  if (!text) return;
  const Json status = Json::parse(*text, nullptr, false);
  if (!status.is_object()) return;
  if (const auto s = status.find("state"); s != status.end() && s->is_string()) c.launcher_state = *s;
  if (const auto r = status.find("reason"); r != status.end() && r->is_string()) c.launcher_reason = *r;
  if (const auto f = status.find("failure_class"); f != status.end() && f->is_string()) c.failure_class = *f;
  if (const auto n = status.find("failure_nodes"); n != status.end() && n->is_array())
    for (const auto& node : *n)
      // A node name as Slurm spells one: it goes into sbatch's --exclude.
      if (node.is_string() && !node.get<std::string>().empty() &&
          node.get<std::string>().find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") ==
              std::string::npos)
        c.failure_nodes.push_back(node.get<std::string>());
}

}  // namespace

Collected collect(const Submitted& job, const std::string& results_dir, const std::vector<int>& expected) {
  const std::string id = std::to_string(job.job_id);
  const fs::path source_path = fs::path(job.profile.results_root) / id;
  Collected c;
  c.dir = results_dir.empty() ? source_path.string() : (fs::path(results_dir) / id).string();
  std::optional<helper::SafeDir> dir = helper::SafeDir::open(source_path.string(), kJobResults, false);
  if (dir && !results_dir.empty() && fs::path(c.dir) != source_path) {
    std::optional<helper::SafeDir> copy =
        helper::SafeDir::open(c.dir, {"copy of the results", "remove it or choose another --results directory"}, true);
    c.not_copied = helper::copy_tree(*dir, *copy);
    dir = std::move(copy);
  }

  std::map<int, std::string> found;  // the AMD contract's fixed-seq/ files: InferenceX's renamed copies come from them
  std::vector<report::TreeFile> tree;
  if (dir) {
    read_launcher_status(*dir, c);
    found = find_result_files(dir->path());
    tree = collect_result_tree(dir->path());
  }
  // The one validity gate (srt/validity.hpp) with InferenceX's collector rules on top
  // (srt/collector_rules.hpp), over srtctl's logs/*isl*osl*/ and the AMD contract's fixed-seq/, as
  // the launcher and `report --check` judge a tree.
  const report::CollectorVerdict verdict = report::judge_collector_tree(
      tree, expected, agentic_max_error_rate(job.recipe, std::getenv("AIPERF_FAILED_REQUEST_THRESHOLD")));

  // InferenceX's renamed copies, from the Plan recorded with the results when there is one.
  report::GpuCount gpus;
  if (const std::optional<std::string> plan = dir ? dir->read_file("plan.json") : std::nullopt) {
    try {
      gpus = report::gpus_from_plan(Json::parse(*plan), dir->path_of("plan.json"));
    } catch (const std::exception&) {
      gpus = report::GpuCount{};  // no renamed copies without GPU counts; the points are still judged
    }
  }
  std::optional<helper::SafeDir> fixed;
  try {
    if (dir && gpus.total > 0) fixed = dir->sub("fixed-seq", false);
  } catch (const Error&) {
    // not ours or a link: find_result_files found nothing there either
  }
  // Best effort, as before: a copy that fails is listed with what was left out.
  const auto copy_into_results = [&](const helper::SafeDir& from, const std::string& name, const std::string& to_name) {
    std::string why;
    try {
      if (!helper::copy_file(from, name, *dir, to_name, &why)) c.not_copied.push_back(from.path_of(name) + ": " + why);
    } catch (const Error& e) {
      c.not_copied.push_back(from.path_of(name) + ": " + e.what());
    }
  };
  const bool disagg = job.recipe.resources.disaggregated();
  c.all_valid = verdict.valid;
  if (!verdict.valid) c.problems = verdict.problems();
  for (const PointResult& r : verdict.points) {
    const int n = r.concurrency;
    auto it = found.find(n);
    if (it != found.end() && fixed && fs::path(r.file).filename() == fs::path(it->second).filename())
      copy_into_results(*fixed, fs::path(it->second).filename().string(),
                        inferencex_name(result_base(job.recipe), job.job_id, n, gpus, disagg));
    c.points.push_back(r);
  }
  for (int n : verdict.missing) c.points.push_back(missing_point(n));
  std::stable_sort(c.points.begin(), c.points.end(),
                   [](const PointResult& a, const PointResult& b) { return a.concurrency < b.concurrency; });
  if (dir && dir->kind_of("runtime-logs.tar.gz") == "regular")
    copy_into_results(*dir, "runtime-logs.tar.gz", "multinode_server_logs.tar.gz");
  return c;
}

}  // namespace srt::run

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "run.hpp"
#include "srt/error.hpp"

namespace srt::run {

namespace fs = std::filesystem;

namespace {

std::string result_base(const Recipe& recipe) {
  if (const char* env = std::getenv("RESULT_FILENAME"); env && *env) return env;
  return recipe.name;
}

void copy_tree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) fail("cannot copy " + from.string() + " to " + to.string() + ": " + ec.message());
}

// status.json's state and reason; empty when the launcher never wrote it (the job died first).
void read_launcher_status(const fs::path& file, Collected& c) {
  std::ifstream in(file);
  if (!in) return;
  const Json status = Json::parse(in, nullptr, false);
  if (!status.is_object()) return;
  if (const auto s = status.find("state"); s != status.end() && s->is_string()) c.launcher_state = *s;
  if (const auto r = status.find("reason"); r != status.end() && r->is_string()) c.launcher_reason = *r;
}

}  // namespace

Collected collect(const Submitted& job, const std::string& results_dir, const std::vector<int>& expected) {
  const std::string id = std::to_string(job.job_id);
  const fs::path source = fs::path(job.profile.results_root) / id;
  Collected c;
  c.dir = results_dir.empty() ? source.string() : (fs::path(results_dir) / id).string();
  if (!results_dir.empty() && fs::exists(source) && fs::path(c.dir) != source) copy_tree(source, c.dir);

  read_launcher_status(fs::path(c.dir) / "status.json", c);

  std::map<int, std::string> found;
  const fs::path fixed = fs::path(c.dir) / "fixed-seq";
  std::error_code ec;
  if (fs::is_directory(fixed, ec))
    for (const auto& entry : fs::directory_iterator(fixed, ec)) {
      const int n = concurrency_of(entry.path().filename().string());
      if (n >= 0) found[n] = entry.path().string();
    }
  std::vector<int> points = expected;
  for (const auto& [n, file] : found)
    if (std::find(points.begin(), points.end(), n) == points.end()) points.push_back(n);
  std::sort(points.begin(), points.end());

  // InferenceX's renamed copies, from the Plan recorded with the results when there is one.
  report::GpuCount gpus;
  const fs::path plan_file = fs::path(c.dir) / "plan.json";
  std::ifstream plan_in(plan_file);
  if (plan_in) {
    try {
      gpus = report::gpus_from_plan(Json::parse(plan_in), plan_file.string());
    } catch (const std::exception&) {
      gpus = report::GpuCount{};  // no renamed copies without GPU counts; the points are still judged
    }
  }
  const bool disagg = job.recipe.resources.disaggregated();
  c.all_valid = !points.empty();
  for (int n : points) {
    auto it = found.find(n);
    PointResult r = judge_point(n, it == found.end() ? "" : it->second);
    if (!r.problem.empty()) c.all_valid = false;
    if (it != found.end() && gpus.total > 0)
      fs::copy_file(it->second, fs::path(c.dir) / inferencex_name(result_base(job.recipe), job.job_id, n, gpus, disagg),
                    fs::copy_options::overwrite_existing, ec);
    c.points.push_back(r);
  }
  const fs::path logs = fs::path(c.dir) / "runtime-logs.tar.gz";
  if (fs::exists(logs)) fs::copy_file(logs, fs::path(c.dir) / "multinode_server_logs.tar.gz", fs::copy_options::overwrite_existing, ec);
  return c;
}

}  // namespace srt::run

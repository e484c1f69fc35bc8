// status.json: how the job ended, every process's exit, and when each state began.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "child.hpp"
#include "run_state.hpp"

namespace srt::launch {

void write_json_atomically(const std::string& path, const Json& j);

void write_status(const Job& job, const std::vector<RunningStep>& steps, const Outcome& outcome,
                  const Timings& timings, double started_unix) {
  Json j = Json::object();
  j["job_id"] = job.plan.job_id;
  j["recipe"] = job.recipe.name;
  j["plan_digest"] = job.plan.digest;
  // What `srt-helper report` needs to show a concurrency that produced no file as missing.
  if (!job.recipe.benchmark.concurrencies.empty()) j["concurrencies"] = job.recipe.benchmark.concurrencies;
  j["state"] = outcome.state;
  j["reason"] = outcome.reason;
  j["started_unix"] = started_unix;
  Json t = Json::object();
  for (const auto& [name, at] : timings) t[name] = at;
  j["timings_seconds"] = t;
  j["processes"] = Json::array();
  for (const auto& s : steps) {
    Json p = {{"name", s.process->name}, {"step_name", s.process->step_name}, {"node", s.process->node},
              {"log", job.log_dir + "/" + s.process->log_file}, {"started", s.started}};
    if (s.ended >= 0) {
      p["ended"] = s.ended;
      p["exit_code"] = s.srun.exit_code();
      p["signal"] = s.srun.term_signal();
      p["stopped_by_launcher"] = s.stopped;
    } else {
      p["ended"] = nullptr;
    }
    j["processes"].push_back(std::move(p));
  }
  write_json_atomically(job.job_dir + "/status.json", j);
  // The Plan beside the results: GPU counts for the report and InferenceX's file names.
  write_json_atomically(job.job_dir + "/plan.json", plan_to_json(job.plan));
}

void write_json_atomically(const std::string& path, const Json& j) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) return;
  }
  std::rename(tmp.c_str(), path.c_str());
}

namespace {

// InferenceX collects /results/<job>/runtime-logs.tar.gz, which the benchmark command writes from
// its EXIT trap. A benchmark stopped by a signal (a worker or the router died, scancel) leaves
// none (bash dies of SIGTERM without running the trap) or a truncated one (the step's processes
// are killed while tar writes; seen in the lab). The logs of a failed run matter most, so the
// launcher writes the same tarball (`tar -C /logs .`) when the benchmark's is missing or unreadable.
void archive_runtime_logs(const Job& job, Console& console) {
  namespace fs = std::filesystem;
  if (job.results_dir.empty()) return;
  const fs::path target = fs::path(job.results_dir) / std::to_string(job.plan.job_id) / "runtime-logs.tar.gz";
  std::error_code ec;
  if (!fs::is_directory(target.parent_path(), ec)) return;
  int status = 0;
  std::string why = "the benchmark left no runtime-logs.tar.gz";
  if (fs::exists(target, ec)) {
    run_capture({"tar", "-tzf", target.string()}, 60, &status, true);
    if (status == 0) return;
    why = "the benchmark's runtime-logs.tar.gz is unreadable (stopped while writing it)";
  }
  const std::string tmp = target.string() + ".tmp";
  run_capture({"tar", "-C", job.log_dir, "-czf", tmp, "."}, 60, &status);
  if (status == 0 && std::rename(tmp.c_str(), target.c_str()) == 0) {
    console.line(why + ": written by the launcher in " + target.string());
    return;
  }
  fs::remove(tmp, ec);
  console.line("could not write " + target.string() + " (tar returned " + std::to_string(status) + ")");
}

}  // namespace

void archive_logs(const Job& job, Console& console) {
  int status = 0;
  run_capture({"tar", "-C", job.job_dir, "-czf", job.job_dir + "/logs.tar.gz", "logs"}, 60, &status);
  if (status == 0) console.line("logs archived in " + job.job_dir + "/logs.tar.gz");
  else console.line("could not archive " + job.log_dir + " (tar returned " + std::to_string(status) + ")");
  archive_runtime_logs(job, console);
}

}  // namespace srt::launch

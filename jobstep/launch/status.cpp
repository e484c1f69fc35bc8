// status.json: how the job ended, every process's exit, and when each state began.
#include <cstdio>
#include <ctime>

#include "srt/process.hpp"
#include "run_state.hpp"
#include "srt/digest.hpp"
#include "srt/error.hpp"

namespace srt::launch {
namespace {

// Best effort, as a status must never stop the teardown; a failure is said on stderr.
void write_json(const helper::SafeDir& dir, const std::string& name, const Json& j) {
  try {
    dir.write_file(name, j.dump(2) + "\n");
  } catch (const Error& e) {
    std::fprintf(stderr, "srt-helper launch: %s\n", e.what());
  }
}

}  // namespace

void write_status(const Job& job, const std::vector<RunningStep>& steps, const Outcome& outcome,
                  const Timings& timings, double started_unix, const std::vector<SweepPoint>& points) {
  Json j = Json::object();
  j["job_id"] = job.plan.job_id;
  j["recipe"] = job.recipe.name;
  j["plan_digest"] = job.plan.digest;
  // What `srt-helper report` needs to show a concurrency that produced no file as missing: the
  // points this job runs (a resumed job runs only some of the grid).
  if (!job.plan.benchmark_points.empty()) j["concurrencies"] = job.points;
  else if (!job.recipe.benchmark.concurrencies.empty()) j["concurrencies"] = job.recipe.benchmark.concurrencies;
  // What `run --resume` checks before it runs the same recipe again (recipe.yaml beside this).
  j["recipe_digest"] = sha256_hex(job.recipe_text);
  j["profile_digest"] = job.profile.digest;
  j["state"] = outcome.state;
  j["reason"] = outcome.reason;
  if (!outcome.failure_class.empty()) {
    j["failure_class"] = outcome.failure_class;
    j["failure_nodes"] = outcome.nodes;
  }
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
  points_to_status(points, j);
  write_json(*job.dir, "status.json", j);
  // The recipe as validated, for `run --resume` (status.json's recipe_digest is its SHA-256).
  try {
    if (job.dir->kind_of("recipe.yaml") == "missing") job.dir->write_file("recipe.yaml", job.recipe_text);
  } catch (const Error& e) {
    std::fprintf(stderr, "srt-helper launch: %s\n", e.what());
  }
  // The Plan beside the results: GPU counts for the report and InferenceX's file names.
  write_json(*job.dir, "plan.json", plan_to_json(job.plan));
}

namespace {

constexpr double kArchiveSeconds = 60;  // one tar, without a deadline nearer


// tar writes the archive to its stdout, a file created here (O_EXCL, never through a link) and
// renamed into place once tar has succeeded; `tar -C DIR -czf PATH` would open PATH itself.
int tar_into(const helper::SafeDir& dir, const std::string& name, const std::vector<std::string>& tar_args,
             const TeardownDeadline& deadline) {
  try {
    helper::NewFile out = dir.new_file(name);
    std::vector<std::string> argv = {"tar"};
    argv.insert(argv.end(), tar_args.begin(), tar_args.end());
    const int status = sys::run_to_fd(argv, deadline.archive(std::time(nullptr), kArchiveSeconds), out.fd());
    if (status == 0) out.commit();
    return status;
  } catch (const Error& e) {
    std::fprintf(stderr, "srt-helper launch: %s\n", e.what());
    return -1;
  }
}

// InferenceX collects /results/<job>/runtime-logs.tar.gz, which the benchmark command writes from
// its EXIT trap. A benchmark stopped by a signal (a worker or the router died, scancel) leaves
// none (bash dies of SIGTERM without running the trap) or a truncated one (the step's processes
// are killed while tar writes; seen in the lab). The logs of a failed run matter most, so the
// launcher writes the same tarball (`tar -C /logs .`) when the benchmark's is missing or unreadable.
void archive_runtime_logs(const Job& job, Console& console, const TeardownDeadline& deadline) {
  if (!job.results) return;
  const helper::SafeDir& dir = *job.results;
  const std::string name = "runtime-logs.tar.gz";
  const std::string target = dir.path_of(name);
  std::string why = "the benchmark left no runtime-logs.tar.gz";
  const std::string kind = dir.kind_of(name);
  if (kind == "regular") {
    int status = 0;
    sys::run_capture({"tar", "-tzf", target}, deadline.archive(std::time(nullptr), kArchiveSeconds), &status, true);
    if (status == 0) return;
    why = "the benchmark's runtime-logs.tar.gz is unreadable (stopped while writing it)";
  } else if (kind != "missing") {
    why = "the benchmark's runtime-logs.tar.gz is not a regular file (" + kind + ")";
  }
  const int status = tar_into(dir, name, {"-C", job.log_dir, "-cz", "-f", "-", "."}, deadline);
  if (status == 0) {
    console.line(why + ": written by the launcher in " + target);
    return;
  }
  console.line("could not write " + target + " (tar returned " + std::to_string(status) + ")");
}

}  // namespace

void archive_logs(const Job& job, Console& console, const TeardownDeadline& deadline) {
  const int status = tar_into(*job.dir, "logs.tar.gz", {"-C", job.job_dir, "-cz", "-f", "-", "logs"}, deadline);
  if (status == 0) console.line("logs archived in " + job.dir->path_of("logs.tar.gz"));
  else console.line("could not archive " + job.log_dir + " (tar returned " + std::to_string(status) + ")");
  archive_runtime_logs(job, console, deadline);
}

}  // namespace srt::launch

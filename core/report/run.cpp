// A run directory -> runs: find the result files (InferenceX's `-c([0-9]+)\.json` rule, srtctl's
// logs/*isl*osl*/results_concurrency_<N>_gpus_<T>...json, or InferenceX's renamed copies), the GPU
// count (plan.json, else the file names, else --gpus, else unknown) and the expected concurrencies
// (status.json, else what is found), so a point the sweep never wrote shows up as missing instead
// of silently vanishing.
#include <algorithm>
#include <climits>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "fields.hpp"
#include "srt/collector_rules.hpp"
#include "srt/error.hpp"
#include "srt/report.hpp"
#include "srt/untrusted_json.hpp"

namespace srt::report {

namespace fs = std::filesystem;

namespace {

constexpr const char* kWhereResults =
    "pass a job's results directory (<root>/<jobid>, holding fixed-seq/), its fixed-seq/, or a job directory in "
    "srtctl's layout (<output_dir>/<jobid>, holding logs/*isl*osl*/)";

struct Layout {
  fs::path run_dir;      // holds plan.json and status.json
  fs::path results_dir;  // holds <name>-c<N>.json, or srtctl's results_concurrency_<N>_gpus_<T>...json
  std::string label;     // srtctl's layout: the *isl*osl* directory's name, which names the run
};

// srtctl's layout (docs/inferencex.md "Checking a results tree as InferenceX's collector does"):
// the *isl*osl* directories of `logs`, each a run of
// the job in `run_dir`.
std::vector<Layout> isl_osl_runs(const RunFiles& files, const fs::path& run_dir, const fs::path& logs) {
  std::vector<Layout> out;
  for (const std::string& name : files.directories(logs))
    if (is_isl_osl_dir_name(name)) out.push_back({run_dir, logs / name, name});
  return out;
}

std::vector<Layout> locate(const RunFiles& files, const fs::path& given) {
  if (!files.is_directory(given)) {
    Diagnostic d;
    d.file = given.string();
    d.message = "not a directory";
    d.hint = kWhereResults;
    throw Error(std::move(d));
  }
  fs::path dir = given;
  if (dir.filename().empty()) dir = dir.parent_path();  // "results/4101/"
  if (files.is_directory(dir / "fixed-seq")) return {{dir, dir / "fixed-seq", ""}};
  // Given fixed-seq/ itself: plan.json and status.json sit one level up.
  if (dir.filename() == "fixed-seq" && !files.exists(dir / "plan.json")) return {{dir.parent_path(), dir, ""}};
  if (files.is_directory(dir / "logs"))
    if (auto runs = isl_osl_runs(files, dir, dir / "logs"); !runs.empty()) return runs;
  // Given logs/, or one *isl*osl* directory: the job's records one or two levels up.
  if (dir.filename() == "logs" && !files.exists(dir / "plan.json"))
    if (auto runs = isl_osl_runs(files, dir.parent_path(), dir); !runs.empty()) return runs;
  if (is_isl_osl_dir_name(dir.filename().string()) && dir.parent_path().filename() == "logs" &&
      !files.exists(dir / "plan.json"))
    return {{dir.parent_path().parent_path(), dir, dir.filename().string()}};
  return {{dir, dir, ""}};
}

// What the launcher recorded of a point it ran as its own step: "stalled", "failed", "not_run"
// (the sweep stopped before it) or "ok", and why.
struct PointNote {
  std::string state, reason;
};

struct Status {
  std::vector<int> concurrencies;
  std::map<int, int> exit_codes;
  std::map<int, PointNote> notes;  // "benchmark_points"
  std::string state;
  bool present = false;
};

// A key of status.json's per-concurrency objects ("benchmark_exit_codes.8"): a concurrency of
// at most 9 digits, as in result file names, so it is an int and never wraps.
int concurrency_key(const std::string& file, const std::string& section, const std::string& k) {
  if (k.empty() || k.find_first_not_of("0123456789") != std::string::npos || k.size() > 9)
    detail::bad_field(file, section + "." + k, "the key must be a concurrency (a positive integer)");
  return std::stoi(k);
}

Status read_status(const RunFiles& files, const fs::path& path) {
  Status s;
  if (!files.exists(path)) return s;
  const std::string file = path.string();
  const Json j = detail::read_json_file(files, file);
  if (!j.is_object()) detail::bad_field(file, "", "expected a JSON object, got " + detail::json_type(j));
  s.present = true;
  if (auto it = j.find("state"); it != j.end() && it->is_string()) s.state = it->get<std::string>();
  if (auto it = j.find("concurrencies"); it != j.end() && !it->is_null()) {
    if (!it->is_array())
      detail::bad_field(file, "concurrencies", "expected a list of positive integers, got " + json_excerpt(*it));
    for (const auto& c : *it) {
      // At most 9 digits, as in result file names (concurrency_of): an int, never wrapped.
      const auto n = integer_value(c, 1, 999999999);
      if (!n) detail::bad_field(file, "concurrencies", "expected positive integers, got " + json_excerpt(c));
      s.concurrencies.push_back(int(*n));
    }
  }
  if (auto it = j.find("benchmark_exit_codes"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      detail::bad_field(file, "benchmark_exit_codes", "expected an object {\"<concurrency>\": status}, got " + json_excerpt(*it));
    for (const auto& [k, v] : it->items()) {
      const int c = concurrency_key(file, "benchmark_exit_codes", k);
      const auto status = integer_value(v, INT_MIN, INT_MAX);  // 2^32 must not read as 0 (success)
      if (!status) detail::bad_field(file, "benchmark_exit_codes." + k, "expected an integer exit status, got " + json_excerpt(v));
      s.exit_codes[c] = int(*status);
    }
  }
  if (auto it = j.find("benchmark_points"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      detail::bad_field(file, "benchmark_points", "expected an object {\"<concurrency>\": {\"state\": ...}}, got " + json_excerpt(*it));
    for (const auto& [k, v] : it->items()) {
      const int c = concurrency_key(file, "benchmark_points", k);
      const std::string key = "benchmark_points." + k;
      const auto state = v.is_object() ? v.find("state") : v.end();
      if (!v.is_object() || state == v.end() || !state->is_string())
        detail::bad_field(file, key, "expected {\"state\": \"ok|failed|contaminated|stalled|not_run\", \"reason\": ...}, got " + json_excerpt(v));
      PointNote note{state->get<std::string>(), ""};
      if (auto r = v.find("reason"); r != v.end() && r->is_string()) note.reason = r->get<std::string>();
      s.notes[c] = std::move(note);
    }
  }
  return s;
}

// "not run: the sweep stopped after c512 stalled (...)" for a point the launcher recorded as not ok.
std::string note_text(const PointNote& n) {
  if (n.state == "ok") return {};
  return (n.state == "not_run" ? std::string("not run") : n.state) + (n.reason.empty() ? "" : ": " + n.reason);
}

struct Found {
  int concurrency;
  fs::path file;
};

// One run's result files, and how its name spells a concurrency: <prefix><infix>N<suffix>.json.
struct ResultSet {
  std::vector<Found> files;
  std::string prefix, infix, suffix;
  std::string leaf(int concurrency) const { return prefix + infix + std::to_string(concurrency) + suffix + ".json"; }
};

// <name> -> its result files. srt-slurm's names by the regex InferenceX's launcher reads N with;
// only when a directory has none of those, the names that launcher renames them to (its copies
// also hold _gpus_<T>, which is why a directory of them needs no plan.json).
std::map<std::string, ResultSet> find_results(const RunFiles& files, const fs::path& results_dir) {
  static const std::regex srt_name(R"((.*)-c([0-9]+)\.json)");
  static const std::regex inferencex_name(R"((.*)(_conc|_concurrency_)([0-9]+)(_gpus_.*)\.json)");
  std::map<std::string, ResultSet> srt_runs, inferencex_runs;
  for (const std::string& leaf : files.regular_files(results_dir)) {
    std::smatch m;
    if (std::regex_match(leaf, m, srt_name) && m[2].length() <= 9) {
      ResultSet& set = srt_runs[m[1].str()];
      set.prefix = m[1].str();
      set.infix = "-c";
      set.files.push_back({std::stoi(m[2].str()), results_dir / leaf});
    } else if (std::regex_match(leaf, m, inferencex_name) && m[3].length() <= 9) {
      ResultSet& set = inferencex_runs[m[1].str() + m[4].str()];
      set.prefix = m[1].str();
      set.infix = m[2].str();
      set.suffix = m[4].str();
      set.files.push_back({std::stoi(m[3].str()), results_dir / leaf});
    }
  }
  auto& by_name = srt_runs.empty() ? inferencex_runs : srt_runs;
  for (auto& [name, set] : by_name) {
    auto& found = set.files;
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.concurrency < b.concurrency; });
    for (std::size_t i = 1; i < found.size(); ++i)
      if (found[i].concurrency == found[i - 1].concurrency) {
        Diagnostic d;
        d.file = found[i].file.string();
        d.message = "a second result for c" + std::to_string(found[i].concurrency) + " (also " +
                    found[i - 1].file.filename().string() + ")";
        d.hint = "keep one result file per concurrency";
        throw Error(std::move(d));
      }
  }
  return std::move(by_name);
}

// plan.json, else the result file names, else --gpus; a record of the run wins over the flag.
GpuCount gpu_count(const RunFiles& files, const fs::path& run_dir, const std::map<std::string, ResultSet>& results,
                   const LoadOptions& options) {
  const std::string ignored = options.gpus > 0 ? " (--gpus " + std::to_string(options.gpus) + " ignored: " : "";
  const fs::path plan = run_dir / "plan.json";
  if (files.exists(plan)) {
    GpuCount g = gpus_from_plan(detail::read_json_file(files, plan.string()), plan.string());
    if (options.gpus > 0 && options.gpus != g.total) g.source += ignored + "the recorded Plan wins)";
    return g;
  }
  std::vector<std::string> names;
  for (const auto& [name, set] : results)
    for (const auto& f : set.files) names.push_back(f.file.string());
  if (std::optional<GpuCount> named = gpus_from_file_names(names)) {
    if (options.gpus > 0 && options.gpus != named->total) named->source += ignored + "the names record the run)";
    return *named;
  }
  GpuCount g;
  if (options.gpus > 0) {
    g.total = options.gpus;
    g.source = "--gpus";
  }
  return g;  // unknown without --gpus: the run is still shown, its per-GPU figures are not
}

std::string job_id_of(const RunFiles& files, const fs::path& run_dir) {
  const fs::path plan = run_dir / "plan.json";
  if (files.exists(plan)) {
    const Json j = detail::read_json_file(files, plan.string());
    if (auto it = j.find("job_id"); it != j.end() && it->is_number_integer() && it->get<long long>() > 0)
      return std::to_string(it->get<long long>());
  }
  fs::path p = run_dir;
  if (p.filename().empty()) p = p.parent_path();  // "results/4101/"
  return p.filename().string();
}

// A value of worker_restarts.json for a person: a short printable string as it is, anything else
// as a bounded JSON excerpt (the file is what the job's user, or a container's root, wrote).
std::string record_text(const Json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() <= 80 && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= 0x20 && ch < 0x7f; })) return s;
  }
  return json_excerpt(v);
}

// <run>/logs/worker_restarts.json (launch's supervisor, in srtctl v2.18's layout) as one line:
// each event's worker, exit, time, outcome and what ran again; "" when there is none. A record
// that cannot be read says so on the line instead of failing the report.
std::string restarts_line(const RunFiles& files, const fs::path& run_dir) {
  const fs::path path = run_dir / "logs" / "worker_restarts.json";
  if (!files.is_regular_file(path)) return {};
  Json j;
  try {
    j = detail::read_json_file(files, path.string());
  } catch (const Error& e) {
    return std::string("unreadable: ") + e.what();
  }
  const Json* events = j.is_object() && j.contains("events") ? &j["events"] : nullptr;
  if (!events || !events->is_array()) return "unreadable: " + path.string() + " has no events list";
  std::string out;
  for (const Json& e : *events) {
    if (!e.is_object()) continue;
    const auto field = [&e](const char* key) { return e.contains(key) && !e[key].is_null() ? record_text(e[key]) : std::string(); };
    std::string one = field("worker") + " exit " + field("exit_code") + " at " + field("exited_at") + ": " + field("outcome");
    if (const std::string rerun = field("rerun"); !rerun.empty()) one += ", " + rerun + " run again";
    out += (out.empty() ? "" : "; ") + one;
  }
  return out;
}

// True when fingerprints.json has worker entries and every one says gpu.count 0. Anything else
// (no file, another shape, a GPU somewhere) is false: the caveat is only printed when the run's
// own record shows there was nothing to measure.
bool fingerprints_without_gpus(const RunFiles& files, const fs::path& run_dir) {
  const fs::path file = run_dir / "fingerprints.json";
  if (!files.is_regular_file(file)) return false;
  const Json j = detail::read_json_file(files, file.string());
  const auto prints = j.find("fingerprints");
  if (prints == j.end() || !prints->is_array()) return false;
  int workers = 0;
  for (const Json& f : *prints) {
    if (!f.is_object()) return false;
    const auto role = f.find("role");
    if (role == f.end() || !role->is_string()) continue;
    const std::string r = role->get<std::string>();
    if (r != "prefill" && r != "decode" && r != "agg") continue;
    const auto gpu = f.find("gpu");
    if (gpu == f.end() || !gpu->is_object()) return false;
    const auto count = gpu->find("count");
    if (count == gpu->end() || !count->is_number_integer() || count->get<long long>() != 0) return false;
    ++workers;
  }
  return workers > 0;
}

std::vector<Run> load_layout(const RunFiles& files, const fs::path& dir, const Layout& where, const LoadOptions& options) {
  const Status status = read_status(files, where.run_dir / "status.json");
  auto by_name = find_results(files, where.results_dir);
  if (by_name.empty()) {
    if (status.concurrencies.empty()) {
      Diagnostic d;
      d.file = where.results_dir.string();
      d.message = "no benchmark results (<name>-c<N>.json, srtctl's results_concurrency_<N>_gpus_<T>...json, or "
                  "InferenceX's <base>_conc<N>_gpus_<T>...json)";
      d.hint = kWhereResults;
      throw Error(std::move(d));
    }
    by_name[""];  // the sweep wrote nothing: every expected point is missing, and says so
  }
  const GpuCount gpus = gpu_count(files, where.run_dir, by_name, options);
  const std::string job_id = job_id_of(files, where.run_dir);
  const bool without_gpus = fingerprints_without_gpus(files, where.run_dir);
  const std::string restarts = restarts_line(files, where.run_dir);

  std::vector<Run> runs;
  for (const auto& [name, set] : by_name) {
    const std::vector<Found>& found_files = set.files;
    Run run;
    if (!where.label.empty()) run.name = by_name.size() > 1 && !name.empty() ? where.label + " " + name : where.label;
    else run.name = name.empty() ? "job " + job_id : name;
    run.dir = dir.string();
    run.job_id = job_id;
    run.state = status.state;
    run.gpus = gpus;
    run.without_gpus = without_gpus;
    run.worker_restarts = restarts;
    run.expected_source = status.concurrencies.empty() ? "result files" : "status.json";
    std::set<int> expected(status.concurrencies.begin(), status.concurrencies.end());
    for (const auto& f : found_files) expected.insert(f.concurrency);
    for (int c : expected) {
      auto found = std::find_if(found_files.begin(), found_files.end(), [c](const Found& f) { return f.concurrency == c; });
      if (found == found_files.end()) {
        Point p;
        p.concurrency = c;
        p.state = PointState::missing;
        const std::string leaf = !name.empty()         ? set.leaf(c)
                                 : where.label.empty() ? "<name>-c" + std::to_string(c) + ".json"
                                                       : "results_concurrency_" + std::to_string(c) + "_gpus_<T>.json";
        p.failure = "no result file " + (where.results_dir / leaf).string();
        if (auto n = status.notes.find(c); n != status.notes.end() && !note_text(n->second).empty())
          p.failure = note_text(n->second) + " (" + p.failure + ")";
        run.points.push_back(std::move(p));
        continue;
      }
      const std::string file = found->file.string();
      std::optional<int> exit_code;
      if (auto e = status.exit_codes.find(c); e != status.exit_codes.end()) exit_code = e->second;
      const Json result = detail::read_json_file(files, file);
      Point p = point_from_result(result, file, c, gpus, exit_code);
      // A file the report finds fine beside a point the launcher judged otherwise (cut as stalled
      // after the client wrote it, or its step failed): the launcher's verdict stands, and says why.
      if (auto n = status.notes.find(c); p.failure.empty() && n != status.notes.end() && !note_text(n->second).empty()) {
        p.failure = note_text(n->second);
        p.state = PointState::failed;
      }
      if (auto m = result.find("model_id"); run.model.empty() && m != result.end() && m->is_string())
        run.model = m->get<std::string>();
      run.points.push_back(std::move(p));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace

std::vector<Run> load_runs(const RunFiles& files, const fs::path& dir, const LoadOptions& options) {
  std::vector<Run> runs;
  for (const Layout& where : locate(files, dir))
    for (Run& run : load_layout(files, dir, where, options)) runs.push_back(std::move(run));
  return runs;
}

}  // namespace srt::report

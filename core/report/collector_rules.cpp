#include "srt/collector_rules.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "srt/agentic_result.hpp"
#include "srt/submit.hpp"
#include "srt/untrusted_json.hpp"

namespace srt::report {

namespace {

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::optional<long long> strict_int(const Json& v) {
  // Python's isinstance(x, int) without bool: JSON true/false and 8.0 are not counts.
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<long long>();
}

// InferenceX's single-node fixed-sequence point: benchmark_serving.py's result saved as
// $RESULT_DIR/$RESULT_FILENAME.json with RESULT_DIR=/logs, directly in the job's logs/ under the
// workflow's name; its max_concurrency says the point. 0 for anything else there (the launcher's
// own JSON files, an AgentX aggregate).
int single_node_concurrency(const std::string& path, const std::string& text) {
  if (path.rfind("logs/", 0) != 0 || path.find('/', 5) != std::string::npos) return 0;
  const Json j = parse_untrusted_json(text);
  if (j.is_discarded() || !j.is_object() || !j.contains("max_concurrency") || !j.contains("completed")) return 0;
  const Json& mc = j["max_concurrency"];
  if (!mc.is_number() || mc.is_boolean()) return 0;
  const double v = mc.get<double>();
  return v >= 1 && v <= double(1 << 30) && v == std::floor(v) ? int(v) : 0;
}

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int c : v) out += (out.empty() ? "" : " ") + std::to_string(c);
  return out;
}

}  // namespace

std::optional<SaBenchName> parse_sa_bench_name(const std::string& file_name) {
  static const std::regex re("results_concurrency_([0-9]{1,9})_gpus_([0-9]{1,9})(_ctx_([0-9]{1,9})_gen_([0-9]{1,9}))?\\.json");
  std::smatch m;
  if (!std::regex_match(file_name, m, re)) return std::nullopt;
  SaBenchName n;
  n.concurrency = std::stoi(m[1].str());
  n.gpus = std::stoi(m[2].str());
  if (m[3].matched) {
    n.ctx = std::stoi(m[4].str());
    n.gen = std::stoi(m[5].str());
  }
  return n;
}

bool is_isl_osl_dir_name(const std::string& name) {
  const auto isl = name.find("isl");
  return isl != std::string::npos && name.find("osl", isl) != std::string::npos;
}

std::optional<std::vector<int>> parse_conc_list(const std::string& text) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::vector<int> out;
  for (std::string word; in >> word;) {
    if (word.size() > 9 || word.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const int c = std::stoi(word);
    if (c <= 0) return std::nullopt;
    out.push_back(c);
  }
  return out;
}

std::string collector_point_problem(const std::string& text, int concurrency) {
  const Json j = parse_untrusted_json(text);
  if (j.is_discarded() || !j.is_object()) return "not a JSON object";
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (!j.contains("max_concurrency")) {
    add("max_concurrency missing");
  } else {
    const Json& mc = j["max_concurrency"];
    // int() in Python: 8 and 8.0 both equal the name's 8.
    const bool number = mc.is_number() && !mc.is_boolean();
    if (!number || std::isnan(mc.get<double>()) || static_cast<long long>(mc.get<double>()) != concurrency)
      add("max_concurrency " + mc.dump() + " is not the file name's " + std::to_string(concurrency));
  }
  if (!j.contains("benchmark_outcome")) return problems;
  const Json& o = j["benchmark_outcome"];
  const auto requested = o.is_object() && o.contains("requested") ? strict_int(o["requested"]) : std::nullopt;
  const auto completed = o.is_object() && o.contains("completed") ? strict_int(o["completed"]) : std::nullopt;
  if (!requested || !completed || *requested <= 0 || *completed < 0 || *completed > *requested) {
    add("benchmark_outcome " + o.dump().substr(0, 200) + " has no integer counts with 0 <= completed <= requested > 0");
    return problems;
  }
  const long long failed = *requested - *completed;
  const bool over = double(failed) / double(*requested) > kMaxFailureRate;
  const Json want = {{"status", over ? "failed" : "passed"},
                     {"requested", *requested},
                     {"completed", *completed},
                     {"failed", failed},
                     {"max_failure_rate", kMaxFailureRate}};
  // Key order aside, exactly these keys and values.
  if (nlohmann::json::parse(o.dump()) != nlohmann::json::parse(want.dump()))
    add("benchmark_outcome " + o.dump().substr(0, 200) + " does not agree with its counts (expected " + want.dump() + ")");
  if (j.contains("completed") && strict_int(j["completed"]) != completed)
    add("completed " + j["completed"].dump() + " differs from benchmark_outcome's " + std::to_string(*completed));
  if (j.contains("num_prompts") && strict_int(j["num_prompts"]) != requested)
    add("num_prompts " + j["num_prompts"].dump() + " differs from benchmark_outcome's requested " + std::to_string(*requested));
  // More than 5 % failed is the per-point gate's to say (judge_point_text): said once.
  return problems;
}

CollectorVerdict judge_collector_tree(const std::vector<TreeFile>& files, const std::vector<int>& expected,
                                      double agentic_max_error_rate) {
  CollectorVerdict v;
  std::map<int, int> seen;
  // The directories holding the marker InferenceX's AgentX scripts leave beside an invalid run.
  constexpr std::string_view kInvalidMarker = "RUN_INVALID.json";
  std::set<std::string> invalid_dirs;
  for (const TreeFile& f : files)
    if (base_name(f.path) == kInvalidMarker) invalid_dirs.insert(f.path.substr(0, f.path.size() - kInvalidMarker.size()));
  for (const TreeFile& f : files) {
    // An AgentX aggregate, found by what it holds (its name is the workflow's RESULT_FILENAME);
    // a `_conc<N>` in its name must be its own conc.
    if (const auto agentic = agentic_concurrency(f.text)) {
      const auto named = agentic_name_concurrency(base_name(f.path));
      const int conc = named.value_or(*agentic);
      ++seen[conc];
      const std::string dir = f.path.substr(0, f.path.size() - base_name(f.path).size());
      v.points.push_back(judge_agentic_text(conc, f.path, f.text, agentic_max_error_rate, invalid_dirs.count(dir) > 0));
      continue;
    }
    // srtctl's sa-bench name, else the AMD contract's fixed-seq/<name>-c<N>.json, else a
    // single-node lane's logs/<RESULT_FILENAME>.json.
    const auto name = parse_sa_bench_name(base_name(f.path));
    int conc = name ? name->concurrency : concurrency_of(base_name(f.path));
    if (conc <= 0) conc = single_node_concurrency(f.path, f.text);
    if (conc <= 0) continue;
    ++seen[conc];
    PointResult p = judge_point_text(conc, f.path, f.text);
    const std::string more = collector_point_problem(f.text, conc);
    if (!more.empty() && p.problem.find(more) == std::string::npos)
      p.problem += (p.problem.empty() ? "" : "; ") + more;
    v.points.push_back(std::move(p));
  }
  std::set<int> want(expected.begin(), expected.end());
  if (want.empty())
    for (const auto& [c, _] : seen) want.insert(c);
  v.expected.assign(want.begin(), want.end());
  for (int c : want)
    if (!seen.count(c)) v.missing.push_back(c);
  for (const auto& [c, n] : seen) {
    if (!want.count(c)) v.unexpected.push_back(c);
    if (n > 1) v.duplicate.push_back(c);
  }
  v.valid = !v.expected.empty() && v.missing.empty() && v.unexpected.empty() && v.duplicate.empty() &&
            std::all_of(v.points.begin(), v.points.end(), [](const PointResult& p) { return p.problem.empty(); });
  return v;
}

std::vector<std::string> CollectorVerdict::problems() const {
  std::vector<std::string> out;
  if (expected.empty()) out.push_back("no benchmark result files found");
  if (!missing.empty()) out.push_back("missing concurrency points: " + join(missing));
  if (!unexpected.empty()) out.push_back("unexpected concurrency points (not in the expected list): " + join(unexpected));
  if (!duplicate.empty()) out.push_back("concurrency points with more than one result file: " + join(duplicate));
  for (const PointResult& p : points)
    if (!p.problem.empty()) out.push_back(p.problem.rfind(p.file, 0) == 0 ? p.problem : p.file + ": " + p.problem);
  return out;
}

}  // namespace srt::report

// The GPU count InferenceX writes into result file names (InferenceX's
// runners/launch_mi355x-amds-srt.sh: the launcher's copies
// <base>_srt-<job>_conc<N>_gpus_<T>[_ctx_<P>_gen_<D>].json, and its benchmark scripts'
// results_concurrency_<N>_gpus_<T>[...].json), for runs that left no plan.json. Names only: no file
// is opened here.
#include <charconv>
#include <regex>
#include <string>
#include <system_error>

#include "srt/error.hpp"
#include "srt/report.hpp"

namespace srt::report {

namespace {

std::string basename_of(const std::string& file) {
  const std::size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

[[noreturn]] void bad_name(const std::string& file, const std::string& message) {
  Diagnostic d;
  d.file = file;
  d.message = message;
  d.hint = "InferenceX names hold _gpus_<T> or _gpus_<T>_ctx_<P>_gen_<D> (T = P + D); rename the file, "
           "or put the job's plan.json beside fixed-seq/";
  throw Error(std::move(d));
}

// A positive count from `digits`; 0, or more than an int holds, is not one.
int count_of(const std::string& digits, const std::string& what, const std::string& file) {
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec == std::errc::result_out_of_range) bad_name(file, what + " " + digits + " in the name is too large");
  if (ec != std::errc() || end != digits.data() + digits.size()) bad_name(file, "cannot read " + what + " '" + digits + "'");
  if (n <= 0) bad_name(file, what + " " + digits + " in the name: must be 1 or more");
  return n;
}

}  // namespace

std::optional<GpuCount> gpus_from_file_name(const std::string& file) {
  std::string stem = basename_of(file);
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
  // _gpus_<T>, optionally _ctx_<P>_gen_<D>, then `_`, `-` (as in <name>_gpus_8-c16) or the end;
  // whatever else follows the digits (group 4) makes the count unreadable, not a different one.
  static const std::regex token(R"(_gpus_([0-9]+)(?:_ctx_([0-9]+)_gen_([0-9]+))?([^_-]*))");
  std::optional<GpuCount> found;
  for (std::sregex_iterator it(stem.begin(), stem.end(), token), end; it != end; ++it) {
    const std::smatch& m = *it;
    if (m[4].length() > 0) bad_name(file, "cannot read a GPU count from '" + m[0].str() + "'");
    GpuCount g;
    g.total = count_of(m[1].str(), "GPU count", file);
    if (m[2].matched) {
      g.prefill = count_of(m[2].str(), "ctx (prefill) GPU count", file);
      g.decode = count_of(m[3].str(), "gen (decode) GPU count", file);
      if (long(g.prefill) + g.decode != g.total)
        bad_name(file, "ctx " + m[2].str() + " + gen " + m[3].str() + " is not gpus " + m[1].str());
    }
    g.source = "result file names";
    if (found && (found->total != g.total || found->prefill != g.prefill || found->decode != g.decode))
      bad_name(file, "two different GPU counts in one name");
    found = g;
  }
  return found;
}

std::optional<GpuCount> gpus_from_file_names(const std::vector<std::string>& files) {
  std::optional<GpuCount> agreed;
  std::string agreed_file;
  for (const auto& file : files) {
    const std::optional<GpuCount> g = gpus_from_file_name(file);
    if (!g) continue;
    if (!agreed) {
      agreed = g;
      agreed_file = file;
      continue;
    }
    if (g->total != agreed->total || g->prefill != agreed->prefill || g->decode != agreed->decode) {
      Diagnostic d;
      d.file = file;
      d.message = "its name says " + std::to_string(g->total) + " GPUs, " + agreed_file + " says " +
                  std::to_string(agreed->total) +
                  (g->total == agreed->total ? " with another prefill/decode split" : "");
      d.hint = "one run's result files name one GPU count: move the other run's files to a directory of their own";
      throw Error(std::move(d));
    }
  }
  return agreed;
}

}  // namespace srt::report

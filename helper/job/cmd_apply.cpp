// srt-helper apply: srtctl's `apply` (helper/job/apply/apply.hpp). With --json, stdout holds exactly
// one JSON document, the manifest or {"status": "error", ...}; everything else goes to stderr,
// since InferenceX's driver reads the whole of stdout with json.loads. Exit codes as srtctl's:
// 0 submitted, 1 not submitted (the error record with --json), 2 usage (CLI11's parse errors).
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "apply/apply.hpp"
#include "commands.hpp"
#include "srt/error.hpp"

namespace srt::helper {

namespace {

// Everything written to stdout while it lives goes to stderr instead: what the submit path prints
// (notes, sbatch's messages) cannot end up beside the manifest.
class StdoutToStderr {
 public:
  StdoutToStderr() : saved_(::dup(STDOUT_FILENO)) {
    std::fflush(stdout);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutToStderr() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      ::dup2(saved_, STDOUT_FILENO);
      ::close(saved_);
    }
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  int saved_;
};

}  // namespace

void add_apply(CLI::App& app) {
  auto r = std::make_shared<apply::ApplyRequest>();
  CLI::App* cmd = app.add_subcommand("apply", "srtctl's apply: submit one recipe as one job (InferenceX's srt driver calls it)");
  // srtctl's -f and --file are one argparse option: the last one given wins (InferenceX's
  // synthetic_acceptance appends --file after the caller's -f).
  cmd->add_option("-f,--file", r->file, "Recipe FILE[:SELECTOR], a directory holding exactly one recipe, or - (standard input; last one wins)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", r->output, "Output base: the job directory is DIR/<jobid> (must be the profile's)");
  cmd->add_option("--profile", r->profile, "Cluster profile (default: $SRTSLURM_CONFIG, /etc/srt/cluster.yaml)");
  // srtctl refuses a malformed --set/--unset in argparse (exit 2): so does CLI11 here.
  const CLI::Validator key_value(
      [](std::string& v) {
        const auto eq = v.find('=');
        return eq == std::string::npos || eq == 0 ? "--set takes KEY=VALUE (a dotted key path), not '" + v + "'" : std::string();
      },
      "KEY=VALUE");
  const CLI::Validator key(
      [](std::string& v) { return v.empty() || v.find('=') != std::string::npos ? "--unset takes a KEY path, not '" + v + "'" : std::string(); },
      "KEY");
  cmd->add_option("--set", r->set, "Override a recipe key: key.path=VALUE (repeatable)")->allow_extra_args(false)->check(key_value);
  cmd->add_option("--unset", r->unset, "Remove a recipe key (repeatable)")->allow_extra_args(false)->check(key);
  cmd->add_option("--tags", r->tags, "Comma-separated tags, recorded in the manifest and <jobid>.json");
  cmd->add_flag("--json", r->json, "Exactly one JSON document on stdout; everything else on stderr");
  cmd->add_flag("-y,--yes", r->yes, "Accepted (apply never asks)");
  cmd->add_flag("--no-preflight", r->no_preflight, "Accepted (srt-spank probes no image at submit)");
  cmd->add_option("--setup-script", r->setup_script,
                  "a script of the profile's setup_scripts_dir run before every worker and the router (the recipe's "
                  "setup_script)");
  cmd->add_flag("--sweep", r->sweep, "Refused: one job per apply");
  cmd->add_flag("--serve-only", r->serve_only, "Refused: the launcher always runs the benchmark");
  cmd->add_flag("--mock", r->mock, "Refused: no local stand-in for sbatch");
  cmd->add_option("--mock-tick-s", r->mock_tick_s, "Refused with --mock");
  cmd->callback([r] {
    try {
      apply::Submission s;
      if (r->json) {
        StdoutToStderr redirect;
        s = apply::apply(*r);
      } else {
        s = apply::apply(*r);
      }
      if (r->json) {
        std::printf("%s\n", apply::manifest(s).dump().c_str());
      } else {
        // The fork path greps `Job ([0-9]+)`.
        std::printf("Job %llu submitted; output_dir %s, sweep log %s/logs/sweep_%llu.log\n",
                    static_cast<unsigned long long>(s.job_id), s.output_dir.c_str(), s.output_dir.c_str(),
                    static_cast<unsigned long long>(s.job_id));
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "srt-helper apply: %s\n", e.what());
      if (r->json) std::printf("%s\n", apply::error_record(e.what()).dump().c_str());
      exit_code = 1;
    }
  });
}

}  // namespace srt::helper

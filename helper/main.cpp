// srt-helper: the job-step helper. main() only dispatches; every subcommand is a file of its own.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "srt/jobstep_abi.hpp"
#include "srt/error.hpp"

int main(int argc, char** argv) {
  // stderr is unbuffered, stdout is fully buffered when it is a file or a pipe: in `>log 2>&1`
  // every warning and note would land before the verdicts printed ahead of them, and a partial
  // stdout line could be joined by a stderr one. Line-buffered, each stdout line is written when
  // it ends, so both streams reach one file in the order the program writes them. std::cout
  // writes through stdio (sync_with_stdio stays on), so this covers it too. Before any output.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);

  using namespace srt::helper;
  // Called as srtctl: its own answers, or the srt-helper command line it stands for.
  std::vector<std::string> srtctl_args;
  std::vector<char*> srtctl_argv;
  if (invoked_as_srtctl(argv[0])) {
    if (const auto rc = srtctl_front(argc, argv, srtctl_args)) return *rc;
    for (std::string& a : srtctl_args) srtctl_argv.push_back(a.data());
    srtctl_argv.push_back(nullptr);
    argc = int(srtctl_argv.size()) - 1;
    argv = srtctl_argv.data();
  }

  CLI::App app{"srt-helper: run disaggregated LLM serving recipes on Slurm", "srt-helper"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("srt-helper " SRT_VERSION));

  // One line per subcommand file (cmd_<name>.cpp).
  add_validate(app);
  add_nodes(app);
  add_schema(app);
  add_topology(app);
  add_plan(app);
  add_report(app);
  add_doctor(app);
  add_submit(app);
  add_apply(app);
  add_run(app);
  add_preflight(app);
  add_port_check(app);
  add_gpu_check(app);
  add_clean_containers(app);
  add_migrate(app);
  add_snapshot(app);

  // launch, kv-relay and kv-watch: their module's exit_code, when it was loaded.
  int* jobstep_exit_code = nullptr;
  const auto code = [&] { return exit_code != 0 || !jobstep_exit_code ? exit_code : *jobstep_exit_code; };
  try {
    jobstep_exit_code = add_jobstep_commands(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 exits 0 for --help/--version and 106+ for usage errors; usage is 2 here.
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const srt::Error& e) {
    std::fprintf(stderr, "srt-helper: %s\n", e.what());
    return code() != 0 ? code() : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srt-helper: %s\n", e.what());
    return 2;
  }
  return code();
}

// Each subcommand of srt-helper lives in its own cmd_<name>.cpp and registers itself on the
// CLI11 app. The callback it installs returns the process exit code through `exit_code` (srt/cli.hpp).
#pragma once
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "srt/cli.hpp"

namespace srt::helper {

void add_validate(CLI::App& app);
void add_nodes(CLI::App& app);
void add_schema(CLI::App& app);
void add_plan(CLI::App& app);
void add_topology(CLI::App& app);
void add_report(CLI::App& app);
void add_doctor(CLI::App& app);
void add_submit(CLI::App& app);
void add_apply(CLI::App& app);
void add_run(CLI::App& app);
void add_preflight(CLI::App& app);
void add_port_check(CLI::App& app);
void add_gpu_check(CLI::App& app);
void add_migrate(CLI::App& app);
void add_clean_containers(CLI::App& app);
void add_snapshot(CLI::App& app);

// srtctl_front.cpp: srt-helper called by the name `srtctl` (its link in libexec/srt-spank/bin).
bool invoked_as_srtctl(const char* argv0);
// An exit code when srtctl answers itself (help, version, a subcommand it does not provide);
// else nullopt, with `args` the srt-helper command line to run.
std::optional<int> srtctl_front(int argc, char** argv, std::vector<std::string>& args);

// In srt-helper: loads the module when ARGV's subcommand is one of kJobstepCommands (an error
// naming the module's path and what to do when it cannot) or when there is no subcommand (the
// top-level help; a warning only). Returns the module's exit_code, or nullptr when not loaded.
int* add_jobstep_commands(CLI::App& app, int argc, char** argv);

}  // namespace srt::helper

// The job-step module's subcommands, each in its own cmd_<name>.cpp, registered on srt-helper's
// CLI11 app by the module's entry point (jobstep_entry.cpp). Their callbacks return the process
// exit code through the module's own `exit_code` (srt/cli.hpp).
#pragma once
#include <CLI/CLI.hpp>

#include "srt/cli.hpp"

namespace srt::helper {

void add_launch(CLI::App& app);
void add_kv_relay(CLI::App& app);
void add_kv_watch(CLI::App& app);

}  // namespace srt::helper

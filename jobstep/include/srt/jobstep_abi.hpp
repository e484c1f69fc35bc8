// The job-step subcommands (launch, kv-relay, kv-watch) live in a module of their own,
// srt-helper-jobstep.so, that srt-helper loads only when one of them runs (or for the full
// --help): they bring ZeroMQ, cpp-httplib (and with it OpenSSL), spdlog and libslurm's job
// API, which validate, nodes, plan and the other user-facing commands never use (docs/design.md
// "The job-step module": those map none of it, and start in a fraction of the time and memory).
#pragma once
#include <CLI/CLI.hpp>

#include <array>
#include <string_view>

namespace srt::helper {

inline constexpr std::array<std::string_view, 3> kJobstepCommands = {"launch", "kv-relay", "kv-watch"};
inline constexpr const char* kJobstepModule = "srt-helper-jobstep.so";
// The module's one exported function: registers its subcommands on APP and returns the module's
// own exit_code, which its callbacks set.
inline constexpr const char* kJobstepEntry = "srt_helper_jobstep_add";
using JobstepEntry = int* (*)(CLI::App* app);

}  // namespace srt::helper

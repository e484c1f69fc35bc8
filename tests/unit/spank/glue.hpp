// Drives the implementation's entry point the way the loader does, inside fake Slurm processes
// (fake_spank.hpp), with the lab's profile shape and the repository's recipes.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "fake_spank.hpp"
#include "scratch.hpp"
#include "srt/document.hpp"

extern "C" {
#include "impl_abi.h"
// The libraries' entry point, here over both sides in one process (glue.cpp: the submit side's
// and the node's dispatchers behind the same guard as impl/entry.cpp).
extern const int srt_impl_abi;
int srt_impl_callback(const char* callback, spank_t sp, const srt_loader_state* state);
}

namespace srt::glue_test {

using spank_test::capture_stderr;
using spank_test::CleanEnv;
using spank_test::source_path;
using spank_test::TempDir;

// A cluster profile shaped like tests/cluster/lab-profile.sh's, nodes lab-n1.. with fixed
// addresses 10.77.0.N; `extra` is appended (a different profile has a different digest).
// Nodes lab-n1..4 at 10.77.0.N, or all at 127.0.0.1 (one_host: every node is this process's
// host, as in the lab's multi-slurmd mode, so a worker step's own-address check passes here).
// Also writes root's parsed copy of it into DIR/cache, as the packages' install step does on a
// node (srt-helper topology --refresh-cache): nodes given cache_dir=DIR/cache plan with it.
std::string write_lab_profile(const TempDir& dir, const std::string& extra = "", bool one_host = false);
// The plugstack words of a node with write_lab_profile's profile and cache in `dir`.
std::vector<std::string> lab_plugstack(const TempDir& dir, const std::string& profile_path);

// What the loader hands over: --srt-recipe, --srt-step and the plugstack.conf words.
struct LoaderArgs {
  const char* recipe = nullptr;
  const char* step = nullptr;
  std::vector<std::string> plugstack;
};
int call_impl(const char* callback, const LoaderArgs& args);

// One slurmstepd of a job on nodes lab-n1..lab-n<nodes>, step `step_id` on all of them, this
// node at `node_id` in the step: the items and job environment Slurm gives the plugin there.
void become_stepd(const std::string& snapshot, int nodes, std::uint32_t step_id, std::uint32_t node_id);

// A snapshot as the submit side would write it for `recipe` (a document, read or made up: the
// snapshot is the user's environment), the profile file at profile_path ("" = built-in default)
// and srt-spank `package` (default: this build's).
std::string snapshot_of(const std::string& recipe_path, const Json& recipe, const std::string& profile_path,
                        const std::string& package = SRT_VERSION);

// Everything the fake logged, one line each (for REQUIRE_THAT ... Contains).
std::string log_text();

}  // namespace srt::glue_test

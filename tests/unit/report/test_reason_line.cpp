#include <catch2/catch.hpp>
#include <string>

#include "srt/reason_line.hpp"

using srt::group_problems;
using srt::RoleProblem;
using srt::runtime_words;

TEST_CASE("a reason names each role once and each shared cause once", "[reason]") {
  const std::string pull = "Error: short-name \"rocm/atom-dev:x\" did not resolve to an alias";
  const std::string line = group_problems({{"prefill", "node1", pull},
                                           {"decode", "node2", pull},
                                           {"router", "node1", pull},
                                           {"prefill", "node1", pull}},
                                          300);
  CHECK(line == "prefill on node1, decode on node2, router on node1: " + pull);
}

TEST_CASE("roles with other causes get their own clause, in the order first seen", "[reason]") {
  const std::string line = group_problems({{"prefill", "node1", "A"},
                                           {"decode", "node2", "B"},
                                           {"prefill", "node1", "C"},
                                           {"router", "", "B"}},
                                          300);
  CHECK(line == "prefill on node1: A, C; decode on node2, router: B");
}

TEST_CASE("long causes are cut to fit the budget, never below 40 characters", "[reason]") {
  const std::string long_cause(500, 'x');
  const std::string line = group_problems({{"prefill", "node1", long_cause}}, 120);
  CHECK(line.size() == 120);
  CHECK(line.substr(line.size() - 3) == "...");
  const std::string tight = group_problems({{"prefill", "node1", long_cause}}, 10);
  CHECK(tight == "prefill on node1: " + std::string(37, 'x') + "...");
  CHECK(group_problems({}, 300).empty());
}

TEST_CASE("the runtime's own words, not Slurm's exit line", "[reason]") {
  CHECK(runtime_words({"Trying to pull rocm/atom-dev:x...",
                       "Error: short-name \"rocm/atom-dev:x\" did not resolve to an alias",
                       "srun: error: node1: task 0: Exited with exit code 125"}) ==
        "Error: short-name \"rocm/atom-dev:x\" did not resolve to an alias");
  CHECK(runtime_words({"bwrap: Can't find source path /etc/libibverbs.d",
                       "srun: error: node2: task 0: Exited with exit code 1"}) ==
        "bwrap: Can't find source path /etc/libibverbs.d");
  // No line reads as an error: the last one that is not Slurm's.
  CHECK(runtime_words({"starting", "killed by the OOM killer\x1b", "srun: error: x"}) == "killed by the OOM killer");
  CHECK(runtime_words({"srun: error: only slurm spoke"}) == "srun: error: only slurm spoke");
  CHECK(runtime_words({"", "   "}).empty());
  CHECK(runtime_words({std::string(1000, 'e') + " error"}).size() == 200);
}

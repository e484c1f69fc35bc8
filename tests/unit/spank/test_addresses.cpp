// The node side's name lookups (slurmapi/addresses.cpp): every name of the job under one deadline,
// looked up at once, so a slow or dead name service fails the job naming the node, never hangs it.
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "slurmapi/addresses.hpp"
#include "srt/error.hpp"

using Catch::Matchers::Contains;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// n1 -> 10.0.0.1, ...; each answer after `delay`, and `stuck` after 3 s (a name server that
// does not answer: glibc waits 5 s per try).
srt::slurmapi::Lookup slow_lookup(std::chrono::milliseconds delay, const std::string& stuck = "") {
  return [=](const std::string& name) {
    std::this_thread::sleep_for(name == stuck ? std::chrono::milliseconds(3000) : delay);
    return std::vector<std::string>{"10.0.0." + name.substr(1)};
  };
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

TEST_CASE("L5: a node name without an answer within the deadline fails naming the node, not after the lookup") {
  const srt::Profile profile;
  const auto t0 = Clock::now();
  std::string message;
  try {
    srt::slurmapi::resolve_addresses({"n1", "n2", "n3"}, profile, slow_lookup(10ms, "n2"), 300ms);
  } catch (const srt::Error& e) {
    message = e.what();
  }
  const double took = seconds_since(t0);
  INFO("took " << took << " s");
  CHECK(took < 1.5);
  CHECK_THAT(message, Contains("node n2: its name got no answer from the name service"));
  CHECK_THAT(message, Contains("node_addresses"));  // what to do
  CHECK_THAT(message, !Contains("node n1") && !Contains("node n3"));
}

TEST_CASE("L5: a job's names are looked up at once, under one deadline for all") {
  const srt::Profile profile;
  std::vector<std::string> nodes;
  for (int n = 1; n <= 8; ++n) nodes.push_back("n" + std::to_string(n));
  const auto t0 = Clock::now();
  const auto found = srt::slurmapi::resolve_addresses(nodes, profile, slow_lookup(250ms), 5000ms);
  const double took = seconds_since(t0);
  INFO("took " << took << " s");
  CHECK(took < 1.0);  // one after another: 2 s
  REQUIRE(found.size() == 8);
  CHECK(found.at("n1") == "10.0.0.1");
  CHECK(found.at("n8") == "10.0.0.8");
}

TEST_CASE("L5: a name that does not resolve is still said so, with the deadline kept") {
  const srt::Profile profile;
  const srt::slurmapi::Lookup none = [](const std::string&) { return std::vector<std::string>{}; };
  CHECK_THROWS_WITH(srt::slurmapi::resolve_addresses({"n1", "n2"}, profile, none, 1000ms),
                    Contains("node n1: its name does not resolve to an IPv4 address"));
}

// sys::poll_until: the one bounded wait of the launcher's teardown, its node-failure check and
// `srt-helper run`'s wait for the job.
#include <catch2/catch.hpp>

#include <chrono>

#include "srt/poll.hpp"

using namespace std::chrono;

TEST_CASE("poll_until: true as soon as an attempt succeeds, without waiting out the deadline") {
  int attempts = 0;
  const auto start = steady_clock::now();
  CHECK(srt::sys::poll_until(30, milliseconds(10), [&] { return ++attempts == 3; }));
  CHECK(attempts == 3);
  CHECK(steady_clock::now() - start < seconds(5));
}

TEST_CASE("poll_until: false once the deadline has passed, after at least one attempt") {
  int attempts = 0;
  const auto start = steady_clock::now();
  CHECK_FALSE(srt::sys::poll_until(0.2, milliseconds(20), [&] { return ++attempts < 0; }));
  CHECK(steady_clock::now() - start >= milliseconds(200));
  CHECK(attempts >= 2);
  attempts = 0;
  CHECK_FALSE(srt::sys::poll_until(0, milliseconds(20), [&] { return ++attempts < 0; }));
  CHECK(attempts == 1);
}

// The bounded wait the launcher and `srt-helper run` each wrote out by hand: try, and until the
// deadline passes, sleep and try again.
#pragma once
#include <chrono>
#include <thread>

namespace srt::sys {

// Calls `attempt` until it returns true (then true), or until `seconds` have passed since the
// call (then false), sleeping `interval` between attempts. `attempt` runs at least once; the
// deadline is checked after each attempt that fails.
template <class Attempt>
bool poll_until(double seconds, std::chrono::milliseconds interval, Attempt attempt) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    if (attempt()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace srt::sys

#include "srt/teardown_deadline.hpp"

#include <algorithm>

namespace srt::launch {

namespace {

// `asked`, or what is left before `end` less `after` when that is less; at least 1 s.
template <typename T>
T fit(std::optional<long long> end, long long now, T asked, long long after) {
  if (!end) return asked;
  const long long left = *end - now - after;
  return std::max<T>(T(1), std::min<T>(asked, T(left)));
}

}  // namespace

std::optional<long long> job_end_time(const std::string& end_time_env, std::optional<long long> warned_at) {
  std::optional<long long> end;
  // 18 digits at most: a unix time, never an overflow.
  if (!end_time_env.empty() && end_time_env.size() <= 18 &&
      std::all_of(end_time_env.begin(), end_time_env.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const long long v = std::stoll(end_time_env);
    if (v > 0) end = v;
  }
  if (warned_at) {
    const long long warned_end = *warned_at + kTimeLimitWarningSeconds;
    end = end ? std::min(*end, warned_end) : warned_end;
  }
  return end;
}

int TeardownDeadline::grace(long long now, int asked) const {
  return fit(end, now, asked, kKillRoundSeconds + kArchiveReserveSeconds);
}

double TeardownDeadline::before_archives(long long now, double asked) const {
  return fit(end, now, asked, kArchiveReserveSeconds);
}

double TeardownDeadline::archive(long long now, double asked) const { return fit(end, now, asked, kLastWordsSeconds); }

}  // namespace srt::launch

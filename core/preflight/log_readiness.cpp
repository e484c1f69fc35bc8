// A service's log probe (srtctl v2.18 LogProbe: "Regular expression searched for in the service
// log"), line by line over what the log gained since the last look.
#include <algorithm>
#include <regex>

#include "srt/readiness.hpp"

namespace srt {

std::optional<std::string> log_pattern_error(const std::string& pattern) {
  try {
    std::regex re(pattern, std::regex::ECMAScript);
    return std::nullopt;
  } catch (const std::regex_error& e) {
    return std::string(e.what());
  }
}

bool log_matches(const std::string& log, const std::string& pattern, std::size_t& searched) {
  if (searched > log.size()) searched = 0;  // a new file in its place: from its start
  // libstdc++'s matcher recurses per character: a line is looked at up to kLineBytes, which a
  // readiness line never needs more of, and which keeps a log of long lines from its stack.
  constexpr std::size_t kLineBytes = 4096;
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return false;  // refused when the recipe was read (log_pattern_error)
  }
  while (searched < log.size()) {
    const std::size_t end = log.find('\n', searched);
    if (end == std::string::npos) return false;  // a line still being written: next time
    const std::size_t length = std::min(end - searched, kLineBytes);
    const bool hit = std::regex_search(log.begin() + std::ptrdiff_t(searched),
                                       log.begin() + std::ptrdiff_t(searched + length), re);
    searched = end + 1;
    if (hit) return true;
  }
  return false;
}

}  // namespace srt

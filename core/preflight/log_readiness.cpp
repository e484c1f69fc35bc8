// A service's log probe (srtctl v2.18 LogProbe: "Regular expression searched for in the service
// log"), line by line over what the log gained since the last look.
#include <regex>

#include "srt/readiness.hpp"

namespace srt {

namespace {

// libstdc++'s matcher recurses per character: a line is looked at up to kLineBytes, which a
// readiness line never needs more of, and which keeps a log of long lines from its stack.
constexpr std::size_t kLineBytes = 4096;

}  // namespace

struct LogMatcher::Compiled {
  std::regex re;
};

std::optional<std::string> log_pattern_error(const std::string& pattern) {
  try {
    std::regex re(pattern, std::regex::ECMAScript);
    return std::nullopt;
  } catch (const std::regex_error& e) {
    return std::string(e.what());
  }
}

LogMatcher::LogMatcher(const std::string& pattern) {
  try {
    re_ = std::make_shared<const Compiled>(Compiled{std::regex(pattern, std::regex::ECMAScript)});
  } catch (const std::regex_error&) {
    // refused when the recipe was read (log_pattern_error): never matches
  }
}

bool LogMatcher::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t end = bytes.find('\n');
    const std::string_view part = bytes.substr(0, end);
    if (line_.size() < kLineBytes) line_.append(part.substr(0, kLineBytes - line_.size()));
    if (end == std::string_view::npos) {
      offset_ += bytes.size();
      return false;  // a line still being written: its rest comes in a later feed
    }
    offset_ += end + 1;
    bytes.remove_prefix(end + 1);
    const bool hit = re_ && std::regex_search(line_, re_->re);
    line_.clear();
    if (hit) return true;
  }
  return false;
}

void LogMatcher::restart() {
  line_.clear();
  offset_ = 0;
}

}  // namespace srt

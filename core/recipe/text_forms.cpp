#include "text_forms.hpp"

#include <cstddef>

namespace srt::schema {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// Advances `i` over at most `most` digits; true when there was at least one.
bool digits(std::string_view s, std::size_t& i, std::size_t most) {
  const std::size_t start = i;
  while (i < s.size() && i - start < most && digit(s[i])) ++i;
  return i > start;
}

}  // namespace

bool is_slurm_time_limit(std::string_view s) {
  if (s == "UNLIMITED" || s == "INFINITE" || s == "unlimited" || s == "infinite") return true;
  constexpr std::size_t any = std::string_view::npos;
  std::size_t i = 0;
  if (!digits(s, i, any)) return false;
  if (i < s.size() && s[i] == '-') {  // D-H[:M[:S]]: the hours part is not bounded to two digits
    ++i;
    if (!digits(s, i, any)) return false;
  }
  for (int pairs = 0; pairs < 2 && i < s.size() && s[i] == ':'; ++pairs) {
    ++i;
    if (!digits(s, i, 2)) return false;
  }
  return i == s.size();
}

bool is_x_joined_counts(std::string_view s) {
  std::size_t i = 0;
  while (true) {
    if (i >= s.size() || s[i] < '1' || s[i] > '9') return false;
    digits(s, i, std::string_view::npos);
    if (i == s.size()) return true;
    if (s[i] != 'x') return false;
    ++i;
  }
}

}  // namespace srt::schema

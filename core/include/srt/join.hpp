// Joining a list into one line of text: "0,1,2" for GPU and NUMA lists, "a, b" in messages; and
// the way back (split_list). One template instead of a join per file; `format` turns an element
// into text where it is neither text nor a number (mounts, port spans, diagnostics).
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace srt {

template <typename Range, typename Format>
std::string join(const Range& items, std::string_view separator, Format&& format) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    first = false;
    out += format(item);
  }
  return out;
}

// Text elements as they are, numbers in decimal.
template <typename Range>
std::string join(const Range& items, std::string_view separator = ",") {
  return join(items, separator, [](const auto& item) -> std::string {
    using T = std::decay_t<decltype(item)>;
    if constexpr (std::is_arithmetic_v<T>) return std::to_string(item);
    else return std::string(item);
  });
}

// "a, b ,,c" -> ["a", "b", "c"]: split on `separator`, spaces and tabs trimmed, empties dropped
// (srtctl's --tags; a comma list of NICs as ATOM trims it).
inline std::vector<std::string> split_list(const std::string& text, char separator = ',') {
  std::vector<std::string> out;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t end = std::min(text.find(separator, from), text.size());
    const std::size_t first = text.find_first_not_of(" \t", from);
    if (first < end) out.push_back(text.substr(first, text.find_last_not_of(" \t", end - 1) + 1 - first));
    from = end + 1;
  }
  return out;
}

}  // namespace srt

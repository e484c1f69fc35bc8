// Joining a list into one line of text: "0,1,2" for GPU and NUMA lists, "a, b" in messages.
// One template instead of a join per file; `format` turns an element into text where it is
// neither text nor a number (mounts, port spans, diagnostics).
#pragma once
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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

}  // namespace srt

#include "srt/limits.hpp"

#include <charconv>

namespace srt {

const std::vector<std::string>& parallel_size_flags() {
  static const std::vector<std::string> flags = {
      "tp", "tp-size", "tensor-parallel-size", "dp", "dp-size", "data-parallel-size", "pp", "pp-size",
      "pipeline-parallel-size", "pcp", "prefill-context-parallel-size", "ep", "ep-size", "expert-parallel-size"};
  return flags;
}

std::optional<std::int64_t> whole_number(const Json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    // Beyond int64: still a whole number, and far beyond every limit.
    return u > std::uint64_t(INT64_MAX) ? INT64_MAX : std::int64_t(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  std::int64_t n = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, n);
  if (ec == std::errc::result_out_of_range) return s[0] == '-' ? INT64_MIN : INT64_MAX;
  if (ec != std::errc() || ptr != end || s.empty()) return std::nullopt;
  return n;
}

std::string parallel_size_problem(const Json& v) {
  if (v.is_null()) return "";
  const std::optional<std::int64_t> n = whole_number(v);
  if (!n) return "is not a whole number";
  if (*n < 1 || *n > kMaxParallelSize)
    return "is " + std::to_string(*n) + "; a parallel size is a whole number from 1 to " + std::to_string(kMaxParallelSize);
  return "";
}

}  // namespace srt

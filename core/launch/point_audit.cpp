#include "srt/point_audit.hpp"

namespace srt::launch {
namespace {

std::string whole_count(double v) { return std::to_string(static_cast<long long>(v)); }

}  // namespace

std::string point_contamination(const PointAudit& a) {
  const long long sent = a.requested + a.warmups;
  const std::string own = "the benchmark sent " + std::to_string(sent) + " (" + std::to_string(a.requested) +
                          " measured, " + std::to_string(a.warmups) + " warm-up) and completed " +
                          std::to_string(a.completed);
  if (a.seen > double(sent))
    return a.counter + " grew by " + whole_count(a.seen) + " during the point, and " + own + ": " +
           whole_count(a.seen - double(sent)) +
           " request(s) came from another client and were served alongside, so the point's numbers "
           "are not the benchmark's alone (docs/security.md \"The network\"; keep the job's ports closed to other hosts)";
  if (a.seen < double(a.completed))
    return a.counter + " grew by " + whole_count(a.seen) + " during the point, and " + own +
           ": requests the benchmark completed did not go through it (does the benchmark's "
           "--base-url name the job's frontend?)";
  return "";
}

std::optional<long long> warmups_in_log(std::string_view log) {
  static constexpr std::string_view kLine = "Warming up with ";
  const std::size_t at = log.rfind(kLine);
  if (at == std::string_view::npos) return 0;
  std::size_t i = at + kLine.size(), digits = 0;
  long long n = 0;
  for (; i < log.size() && log[i] >= '0' && log[i] <= '9'; ++i, ++digits) {
    if (digits == 9) return std::nullopt;  // a billion warm-up requests is no benchmark's
    n = n * 10 + (log[i] - '0');
  }
  if (digits == 0 || log.substr(i, 9) != " requests") return std::nullopt;
  return n;
}

}  // namespace srt::launch

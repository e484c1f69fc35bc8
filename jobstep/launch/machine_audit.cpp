// Whose requests each benchmark point measured (srt/point_audit.hpp, docs/security.md M3): the
// router's count of completion requests (or, without a router, the serving workers' finished
// requests) read before and after the point, against the benchmark's result and the warm-ups
// its log says it sent.
#include <filesystem>
#include <fstream>

#include "machine_impl.hpp"
#include "probe.hpp"
#include "srt/engines.hpp"
#include "srt/prometheus.hpp"

namespace srt::launch {
namespace {

// A point's own lines of the benchmark's log (every point appends to it): from `from` on, at most
// the last MiB (the warm-up line comes early, but a point's output is a few KB).
std::string log_since(const std::string& path, std::uintmax_t from) {
  constexpr std::uintmax_t kMax = 1 << 20;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size <= from) return {};
  const std::uintmax_t start = size - from > kMax ? size - kMax : from;
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(static_cast<std::size_t>(size - start), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace

void Launch::audit_start() {
  std::string why_not;
  audit_ = audit_source(job_.plan, why_not);
  console_.line(audit_ ? "benchmark: each point's requests are counted by " + audit_->counter +
                             " against the benchmark's own"
                       : "benchmark: points are not audited for other clients' requests (" + why_not + ")");
}

std::optional<double> Launch::audit_count() const {
  double total = 0;
  for (const ProgressSource& s : audit_->reads) {
    const ProbeResult r = http_get(address(*s.process), s.port, "/metrics");
    if (!r.ok) return std::nullopt;
    total += prometheus_sum(r.body, s.metric, s.label).value_or(0);  // no sample yet: none counted
  }
  return total;
}

void Launch::audit_begin(const SweepPoint& pt) {
  if (!audit_) return;
  audit_before_ = audit_count();
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(job_.log_dir + "/" + pt.process.log_file, ec);
  audit_log_from_ = ec ? 0 : size;
}

std::string Launch::audit_end(SweepPoint& pt, const PointResult& r) {
  if (!audit_ || !audit_before_ || !r.problem.empty()) return "";
  const std::optional<double> after = audit_count();
  const std::optional<long long> warmups = warmups_in_log(log_since(job_.log_dir + "/" + pt.process.log_file, audit_log_from_));
  if (!after || !warmups) {
    console_.line("benchmark c" + std::to_string(pt.concurrency) + ": not audited (" +
                  (!after ? audit_->counter + " unreadable" : std::string("its log's warm-up count unreadable")) + ")");
    return "";
  }
  PointAudit a;
  a.counter = audit_->counter;
  a.seen = *after - *audit_before_;
  a.completed = r.completed;
  a.requested = r.requested;
  a.warmups = *warmups;
  pt.audit = a;
  return point_contamination(a);
}

}  // namespace srt::launch

// Whose requests each benchmark point measured (srt/point_audit.hpp, docs/security.md "The network"): the
// router's count of completion requests (or, without a router, the serving workers' finished
// requests) read before and after the point, against the benchmark's result and the warm-ups
// its log says it sent.
#include <optional>

#include "machine_impl.hpp"
#include "probe.hpp"
#include "srt/engines.hpp"
#include "srt/prometheus.hpp"
#include "srt/safe_dir.hpp"

namespace srt::launch {
namespace {

// A point's own lines of the benchmark's log (every point appends to it): from `from` on, at most
// the last MiB (the warm-up line comes early, but a point's output is a few KB). Read through the
// log directory's descriptor, never through a link a container planted at the name.
std::string log_since(const helper::SafeDir& logs, const std::string& name, std::uint64_t from) {
  constexpr std::uint64_t kMax = 1 << 20;
  const std::optional<std::uint64_t> size = logs.size_of(name);
  if (!size || *size <= from) return {};
  const std::uint64_t start = *size - from > kMax ? *size - kMax : from;
  bool restarted = false;
  const std::optional<std::string> text = logs.read_file_from(name, start, restarted, std::size_t(kMax));
  return text && !restarted ? *text : std::string();
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
  audit_log_from_ = job_.logs ? job_.logs->size_of(pt.process.log_file).value_or(0) : 0;
}

std::string Launch::audit_end(SweepPoint& pt, const PointResult& r) {
  if (!audit_ || !audit_before_ || !r.problem.empty()) return "";
  const std::optional<double> after = audit_count();
  const std::optional<long long> warmups = warmups_in_log(job_.logs ? log_since(*job_.logs, pt.process.log_file, audit_log_from_) : std::string());
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

#include "power_collector.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <chrono>
#include <future>
#include "probe.hpp"

#include <sys/time.h>

#include "srt/error.hpp"

namespace srt::launch {

namespace {

// An exporter's answer is read up to this much: a node's /metrics is a few hundred KiB at most
// (ROCm's exporter with every field of eight GPUs); more is not an exporter's.
constexpr std::size_t kMaxScrapeBytes = 8u << 20;

// The launcher's clock, which stamps every window too (machine_impl.hpp unix_now).
double now_unix() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  return double(tv.tv_sec) + double(tv.tv_usec) / 1e6;
}

struct Scrape {
  bool ok = false;
  std::string body, why;
};

Scrape get_metrics(const PowerEndpoint& e, double timeout) {
  const ProbeResult r = http_get(e.address, e.port, "/metrics", {kMaxScrapeBytes, timeout});
  Scrape s;
  if (r.too_big) s.why = "endpoint_parse_error";
  else if (r.timed_out) s.why = "endpoint_timeout";
  else if (r.status < 200 || r.status > 299) s.why = "endpoint_http_error";
  else s.ok = true, s.body = r.body;
  return s;
}

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) fail("samples.csv: " + std::string(::strerror(errno)));
    done += std::size_t(n);
  }
}

}  // namespace

PowerCollector::PowerCollector(const TelemetryPlan& plan, std::vector<PowerEndpoint> endpoints, const helper::SafeDir& dir)
    : plan_(plan), endpoints_(std::move(endpoints)), csv_(dir.append_file("samples.csv")) {
  write_all(csv_.get(), std::string(kPowerSamplesHeader) + "\n");
}

PowerCollector::~PowerCollector() { stop(); }

void PowerCollector::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { loop(); });
}

void PowerCollector::loop() {
  const auto period = std::chrono::milliseconds(plan_.collect_interval_ms);
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    try {
      cycle();
    } catch (const std::exception&) {
      note("collector_exception");
      return;
    }
    next += period;
    // Late (a slow endpoint): the next cycle starts now rather than catching up in a burst.
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    while (!stopping_ && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(next - std::chrono::steady_clock::now(),
                                                                                std::chrono::milliseconds(20)));
  }
}

// Every endpoint at once (one slow node must not delay the others' samples), each row stamped
// with the midpoint of its own request on the launcher's clock.
void PowerCollector::cycle() {
  const long long seq = seq_;
  struct Answer {
    Scrape scrape;
    double t = 0;
  };
  std::vector<std::future<Answer>> pending;
  for (const auto& e : endpoints_)
    pending.push_back(std::async(std::launch::async, [&e, this] {
      const double t0 = now_unix();
      Answer a{get_metrics(e, plan_.request_timeout_seconds), 0};
      a.t = (t0 + now_unix()) / 2;
      return a;
    }));
  std::string lines;
  std::set<std::pair<std::string, int>> seen;
  std::vector<PowerSample> rows;
  std::set<std::string> reasons;
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    Answer a = pending[i].get();
    if (!a.scrape.ok) {
      if (ready_) reasons.insert(a.scrape.why);
      continue;
    }
    const PowerScrape read = read_power_scrape(a.scrape.body, plan_.exporter);
    reasons.insert(read.reasons.begin(), read.reasons.end());
    for (const auto& r : read.rows) {
      lines += power_samples_row(a.t, seq, endpoints_[i].host, r) + "\n";
      seen.insert({endpoints_[i].host, r.gpu_index});
      rows.push_back({a.t, endpoints_[i].host, r.gpu_index, r.uuid});
    }
  }
  write_all(csv_.get(), lines);
  ++seq_;
  std::lock_guard<std::mutex> lock(mu_);
  samples_.insert(samples_.end(), rows.begin(), rows.end());
  reasons_.insert(reasons.begin(), reasons.end());
  last_cycle_ = std::move(seen);
}

bool PowerCollector::covered(const std::set<std::pair<std::string, int>>& expected, std::string& missing) const {
  std::lock_guard<std::mutex> lock(mu_);
  missing.clear();
  for (const auto& d : expected)
    if (!last_cycle_.count(d)) missing += (missing.empty() ? "" : ", ") + d.first + " GPU " + std::to_string(d.second);
  return missing.empty();
}

void PowerCollector::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  thread_.join();
  // The final bracketing scrape: the last window's end needs a sample after it.
  try {
    cycle();
  } catch (const std::exception&) {
    note("collector_exception");
  }
  csv_ = UniqueFd();
}

void PowerCollector::note(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  reasons_.insert(reason);
}

std::vector<PowerSample> PowerCollector::samples() const {
  std::lock_guard<std::mutex> lock(mu_);
  return samples_;
}

std::set<std::string> PowerCollector::reasons() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reasons_;
}

}  // namespace srt::launch

// GPU power telemetry's collector (srt/power.hpp), as srtctl runs its own inside the
// orchestrator (NVIDIA/srt-slurm src/srtctl/core/power/session.py): a thread in the launcher
// that scrapes every node's exporter once per collect interval, all at once, and appends the rows
// to samples.csv with the launcher's clock (the midpoint of each request), so samples and
// windows come from one clock. The launcher stamps each benchmark point's window around its step.
#pragma once
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "srt/plan.hpp"
#include "srt/power.hpp"
#include "srt/safe_dir.hpp"
#include "srt/unique_fd.hpp"

namespace srt::launch {

struct PowerEndpoint {
  std::string host;     // the Slurm node name (samples.csv's hostname)
  std::string address;  // where its exporter answers
  int port = 0;
};

class PowerCollector {
 public:
  // `dir`: the power directory; samples.csv is made there at once (never through a link: the
  // directory is under the job's logs, which the containers can write).
  PowerCollector(const TelemetryPlan& plan, std::vector<PowerEndpoint> endpoints, const helper::SafeDir& dir);
  ~PowerCollector();
  PowerCollector(const PowerCollector&) = delete;
  PowerCollector& operator=(const PowerCollector&) = delete;

  void start();  // the thread: a cycle now, then one every collect interval
  // Whether one cycle (not a union of cycles) held a row for every device in `expected`
  // (srtctl's readiness), and what the last cycle lacked for the console.
  bool covered(const std::set<std::pair<std::string, int>>& expected, std::string& missing) const;
  // From here on a failed scrape is recorded: before, an exporter still starting answers nothing,
  // and a start that never completes is exporter_startup_timeout.
  void ready() { ready_ = true; }
  // The final bracketing scrape, then the thread joined and samples.csv closed.
  void stop();
  // Each exporter step's end, seen by the launcher (srtctl's exporter_exited).
  void exporter_exited() { note("exporter_exited"); }

  std::vector<PowerSample> samples() const;
  long long scrapes() const { return seq_; }
  std::set<std::string> reasons() const;


 private:
  void loop();
  void cycle();
  void note(const std::string& reason);

  TelemetryPlan plan_;
  std::vector<PowerEndpoint> endpoints_;
  UniqueFd csv_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> ready_{false};
  std::atomic<long long> seq_{0};
  mutable std::mutex mu_;  // below: written by the thread, read by the launcher
  std::vector<PowerSample> samples_;
  std::set<std::string> reasons_;
  std::set<std::pair<std::string, int>> last_cycle_;
};

}  // namespace srt::launch

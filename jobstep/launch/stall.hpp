// Is the benchmark still getting anywhere? A benchmark client stuck at 1023/1024 requests, or an
// engine that stopped answering while its /health still says ok, looks like a running step to
// Slurm for hours (docs/design.md "Benchmark sweep and stalls"). The watch reads what moves while
// requests complete: the counters the Plan's adapters name (srt/engines.hpp progress_sources: the
// router's answered requests, 200s only, such as AToMesh's mesh_http_responses_total; each engine's
// finished requests, such as ATOM's atom:requests_finished_total, refreshed every 5 s), and the
// result files under the job's results directory. No movement in any of them for the stall
// timeout is a stall.
#pragma once
#include <string>
#include <vector>

#include "launch.hpp"

namespace srt::launch {

class StallWatch {
 public:
  // `timeout_seconds` <= 0: never stalls (the watch still reads nothing).
  StallWatch(const Job& job, double timeout_seconds, double now);

  // Reads the counters when a poll is due (every few seconds); true once nothing moved for the
  // timeout.
  bool stalled(double now);
  // What was seen last, for the reason: "router mesh_http_responses_total{status_code="200"} 320,
  // engines' atom:requests_finished_total 318, 2 result file(s)".
  std::string seen() const;

 private:
  struct Source {
    std::string host;
    int port = 0;
    std::string metric, label;
    bool router = false;
  };
  std::string sample();

  std::vector<Source> sources_;
  std::string router_metric_, engine_metric_;  // as seen() names them ("" = the Plan has none)
  std::string results_;  // <results_root>/<jobid>/fixed-seq on this host
  double timeout_;
  double last_poll_ = -1, last_change_;
  std::string last_;
  double router_ = -1, engines_ = -1;
  long files_ = 0;
};

}  // namespace srt::launch

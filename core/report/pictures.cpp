// The picture's input: the runs as the JSON document plot_report.py draws (throughput per GPU
// against interactivity, one line per run). Drawing it is sys/report_pictures.cpp's: python runs
// at the machine edge, not here.
#include <string>

#include "srt/error.hpp"
#include "srt/report.hpp"

namespace srt::report {

namespace fs = std::filesystem;

Json plot_input(const std::vector<Run>& runs, const fs::path& out_dir, const PictureOptions& options) {
  const bool output = options.y_metric == "output";
  if (!output && options.y_metric != "total")
    fail("unknown picture metric '" + options.y_metric + "'", "use total (token throughput per GPU) or output");
  Json j;
  j["png"] = (out_dir / "throughput_vs_interactivity.png").string();
  j["svg"] = (out_dir / "throughput_vs_interactivity.svg").string();
  j["title"] = options.title.empty() ? "Throughput per GPU vs interactivity" : options.title;
  j["x_label"] = "Interactivity (tok/s/user = 1000 / median TPOT ms)";
  j["y_label"] = output ? "Output token throughput per GPU (tok/s/GPU)"
                        : "Token throughput per GPU (input + output tok/s / GPUs)";
  j["runs"] = Json::array();
  for (const auto& r : runs)
    if (r.gpus.known() && r.without_gpus) j["caveat"] = kStandInCaveat;
  for (const auto& r : runs) {
    if (!r.gpus.known()) continue;  // per-GPU throughput is the y axis
    Json run;
    run["label"] = r.label();
    run["points"] = Json::array();
    run["not_drawn"] = Json::array();
    for (const auto& p : r.points) {
      const std::string conc = "c" + std::to_string(p.concurrency);
      if (!p.plottable()) {
        // The table has the full reason; under the chart a short one keeps the note readable.
        run["not_drawn"].push_back(p.state == PointState::missing ? conc + " missing (no result file)"
                                                                  : conc + " failed: " + p.failure);
        continue;
      }
      run["points"].push_back({{"concurrency", p.concurrency},
                               {"x", p.interactivity},
                               {"y", output ? p.output_per_gpu : p.total_per_gpu},
                               {"failed", p.state == PointState::failed},
                               {"reason", p.failure}});
    }
    j["runs"].push_back(std::move(run));
  }
  return j;
}

}  // namespace srt::report

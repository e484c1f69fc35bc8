// The report at the machine edge: a run directory read from the disk, and the picture drawn by
// python. The rules (what a result means, which point is missing) are core's (srt/report.hpp).
#pragma once
#include <filesystem>
#include <vector>

#include "srt/report.hpp"

namespace srt::report {

// The disk as load_runs reads it: std::filesystem, symlinks followed as the results' own
// layout (InferenceX's copies) may use them, every file through read_text_file's bounds.
const RunFiles& disk_files();

// load_runs over disk_files().
std::vector<Run> load_runs(const std::filesystem::path& dir, const LoadOptions& options = {});

// Writes throughput_vs_interactivity.png and .svg into `out_dir` (created if needed), drawn by
// `options.python` from plot_input's document. Throws srt::Error when no run has a GPU count, or
// the plotter cannot run, fails (with its own last lines) or takes longer than 120 s.
Pictures write_pictures(const std::vector<Run>& runs, const std::filesystem::path& out_dir,
                        const PictureOptions& options = {});

}  // namespace srt::report

// A job's benchmark results on disk, judged by the one validity gate (srt/validity.hpp): the
// files are InferenceX's <name>-c<N>.json under <job results>/fixed-seq/. The results root is
// shared with other users, so only regular files are read (a symlink or a FIFO planted there is
// reported, never followed or opened for reading), each bounded in size.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "srt/validity.hpp"

namespace srt {

// concurrency -> path of every `-c<N>.json` directly in <dir>/fixed-seq (none when absent).
std::map<int, std::string> find_result_files(const std::filesystem::path& dir);

// One result file read (regular file only, at most 64 MiB) and judged; "" = missing.
PointResult judge_point(int concurrency, const std::string& file);

// Every planned point of the job in `dir` (<results root>/<jobid>) and every file found.
SweepVerdict judge_results(const std::filesystem::path& dir, const std::vector<int>& planned);

}  // namespace srt

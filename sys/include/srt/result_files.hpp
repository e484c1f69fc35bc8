// A job's benchmark results on disk, judged by the one validity gate (srt/validity.hpp) and
// InferenceX's collector rules (srt/collector_rules.hpp): the AMD contract's <name>-c<N>.json
// under <job results>/fixed-seq/, and srtctl's logs/*isl*osl*/results_concurrency_*.json under the
// job's directory. Both trees are shared with other users (and the job's containers write them),
// so only regular files are read (a symlink or a FIFO planted there is reported or skipped, never
// followed or opened for reading), each bounded in size.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "srt/collector_rules.hpp"
#include "srt/validity.hpp"

namespace srt {

// concurrency -> path of every `-c<N>.json` directly in <dir>/fixed-seq (none when absent).
std::map<int, std::string> find_result_files(const std::filesystem::path& dir);

// One result file read (regular file only, at most 64 MiB) and judged; "" = missing.
PointResult judge_point(int concurrency, const std::string& file);

// Every planned point of the job in `dir` (<results root>/<jobid>) and every file found.
SweepVerdict judge_results(const std::filesystem::path& dir, const std::vector<int>& planned);

// Every result file of a tree, in either layout: srtctl's (*.json below the directories named
// *isl*osl* in <root>/logs, or in <root> itself) and the AMD contract's (<root>/fixed-seq/*.json),
// paths relative to `root`. Directories are entered only when they are not links; a file that is
// not a regular one, or is larger than 64 MiB, is left out.
std::vector<report::TreeFile> collect_result_tree(const std::filesystem::path& root);

}  // namespace srt

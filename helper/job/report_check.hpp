// srt-helper report --check DIR: InferenceX's collector rules (srt/collector_rules.hpp) on a
// results tree, offline: srtctl's logs/*isl*osl*/results_concurrency_*.json and the AMD
// contract's fixed-seq/<name>-c<N>.json.
#pragma once
#include <string>
#include <vector>

namespace srt::helper {

// Prints the verdict (stdout) and returns whether the tree passes. `expected` empty: whatever
// was found.
bool check_results_tree(const std::string& dir, const std::vector<int>& expected);

}  // namespace srt::helper

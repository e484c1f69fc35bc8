// The section names of a variants file and the selector spellings, shared by the expansion
// (variants.cpp) and the command line's FILE:SELECTOR (variants_ref.cpp). srtctl 2.0's names:
// SemiAnalysisAI/srt-slurm @ 32ef19f7, src/srtctl/core/config.py (generate_override_configs).
#pragma once
#include <string>

namespace srt::variant_keys {

inline const std::string kOverride = "override_";
inline const std::string kZip = "zip_override_";

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// A selector with * or ? names the sections it matches (fnmatch), as _expand_wildcard does.
inline bool is_glob(const std::string& s) { return s.find_first_of("*?") != std::string::npos; }

}  // namespace srt::variant_keys

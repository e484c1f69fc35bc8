// Internal to core/plan: how srtctl turns a YAML map into command-line flags.
#pragma once
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt::plan_detail {

// Engine config (atom_config.<role>, reference 1.3): keys sorted, spelled as written, `--` added
// unless the key already starts with '-'; true -> bare flag; false/null dropped; a list -> the flag
// then every item; scalars through Python's str().
std::vector<std::string> engine_flags(const Json& config);

// Frontend args (reference 1.4): `--key value` with '_' -> '-', in file order; a list repeats the
// flag; true -> bare flag; false/null dropped.
std::vector<std::string> frontend_flags(const Json& args);

// A key of atom_config compared the way srtctl compares reserved keys: dashes stripped, '_' -> '-'.
std::string normalized_flag(const std::string& key);

// The value of an engine flag given under any of its spellings ("tp", "-tp", "tensor_parallel_size").
const Json* find_flag(const Json& config, const std::vector<std::string>& names);

// True when the flag is present and not false/null.
bool flag_enabled(const Json& config, const std::vector<std::string>& names);

}  // namespace srt::plan_detail

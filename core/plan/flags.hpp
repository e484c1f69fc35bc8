// Internal to core/plan: how srtctl turns a YAML map into command-line flags.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "srt/document.hpp"

namespace srt::plan_detail {

// Engine config (atom_config.<role>; SemiAnalysisAI/srt-slurm src/srtctl/backends/atom.py @
// 05a3cec4, _config_to_cli_args): keys sorted, spelled as written, `--` added unless the key
// already starts with '-'; true -> bare flag; false/null dropped; a list -> the flag then every
// item; scalars through Python's str().
std::vector<std::string> engine_flags(const Json& config);

// A role's args as srtctl's SGLang and vLLM backends render them (_config_to_cli_args,
// NVIDIA/srt-slurm src/srtctl/backends/vllm.py @ 009a4fa3): keys in sorted() order, '_' -> '-',
// `--` added; true -> bare flag; false/null dropped; a list -> the flag then every item; a mapping
// -> one JSON argument (str() of a dict is Python's repr, which neither engine parses); other
// scalars through Python's str(). Keys `dropped` accepts are left out.
std::vector<std::string> role_flags(const Json& config, const std::function<bool(const std::string&)>& dropped);

// Frontend args (SemiAnalysisAI/srt-slurm src/srtctl/frontends/static_router.py @ 06275a3e,
// get_frontend_args_list): `--key value` with '_' -> '-', in file order; a list repeats the
// flag; true -> bare flag; false/null dropped.
std::vector<std::string> frontend_flags(const Json& args);

// A key of atom_config compared the way srtctl compares reserved keys: dashes stripped, '_' -> '-'.
std::string normalized_flag(const std::string& key);

// The value of an engine flag given under any of its spellings ("tp", "-tp", "tensor_parallel_size").
const Json* find_flag(const Json& config, const std::vector<std::string>& names);

// The integer value of a flag under any of its spellings (a number or a numeric string), else fallback.
int int_flag(const Json& config, const std::vector<std::string>& names, int fallback);

// A parallel size under any of its spellings: 1 when absent (or null), else a whole number in
// [1, kMaxParallelSize] (srt/limits.hpp); anything else throws, naming the flag and `who`. The
// recipe's rules refuse the same values at their key; this keeps a Plan built by any other path
// (a snapshot, a test) from counting a number the engine would read otherwise.
int parallel_size(const Json& config, const std::vector<std::string>& names, const std::string& who);

// True when the flag is present and not false/null.
bool flag_enabled(const Json& config, const std::vector<std::string>& names);

}  // namespace srt::plan_detail

// Typed reads from the JSON files a run leaves behind (result files, plan.json, status.json),
// each failure an srt::Error naming the file and the key, never a nlohmann exception.
#pragma once
#include <string>

#include "srt/document.hpp"
#include "srt/report.hpp"

namespace srt::report::detail {

// Parses `path` (read through `files`) as JSON; malformed or unreadable -> srt::Error naming the
// file and the position.
Json read_json_file(const RunFiles& files, const std::string& path);

[[noreturn]] void bad_field(const std::string& file, const std::string& key, const std::string& message,
                            const std::string& hint = {});

// The number at `key`; `fallback` when the key is absent or null (benchmark_serving.py only
// writes the percentile keys that were asked for). Anything else -> srt::Error.
double number_or(const Json& obj, const std::string& key, double fallback, const std::string& file);

// As number_or, but the key must be there: without it the file is not a result file.
double required_number(const Json& obj, const std::string& key, const std::string& file);

std::string json_type(const Json& v);

}  // namespace srt::report::detail

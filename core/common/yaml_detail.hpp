// Internals of the YAML reader shared by its files (not a public header).
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "srt/document.hpp"

namespace srt::yaml_detail {

// A plain scalar resolved the way PyYAML's Resolver + SafeConstructor do (YAML 1.1).
// On failure (an integer beyond int64, ...) returns nullopt and sets `error`.
std::optional<Json> resolve_plain(const std::string& text, std::string& error);

// An explicitly tagged scalar (`!!int "3"`); unknown tags are refused, as safe_load does.
std::optional<Json> resolve_tagged(const std::string& tag, const std::string& text, bool plain,
                                   std::string& error);

// Removes a UTF-8 BOM, turns CRLF and lone CR into LF, and refuses what PyYAML's Reader refuses
// (invalid UTF-8, NUL and other control characters) with the line and column of the offender.
std::string normalize_text(const std::string& raw, const std::string& name);

// Refuses nesting deeper than max_depth before yaml-cpp recurses into it (a 10,000-deep `[[[`
// would otherwise exhaust the stack). Over-estimates depth; never under-estimates.
void check_nesting(const std::string& text, const std::string& name, int max_depth);

}  // namespace srt::yaml_detail

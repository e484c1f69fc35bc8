// `srt-helper migrate`: a v1-layout srt-slurm recipe rewritten in srt-slurm 2.x's `schema: 2`
// layout, key by key as `srtctl migrate` does (reference/srt-slurm-v2.md section 4;
// src/srtctl/core/migrate.py, docs/legacy-v1.md), and exactly the inverse of what
// schema2_normalize.cpp reads back, so both spellings make the same Plan.
//
// Pure: a Document in (the user's file as parse_yaml read it, no --set/--unset), a Json or text out.
#pragma once
#include <string>

#include "srt/document.hpp"

namespace srt {

// `root` as YAML text, written by yaml-cpp's emitter (key order kept) so that parse_yaml() reads
// back the same value: strings YAML 1.1 would read as another type ("1", "true", "08:00:00") are
// quoted. A non-empty header_comment becomes the first line, "# <header_comment>".
// (core/common/yaml_emit.cpp, beside the reader; declared here, its one user, so that adding it
// did not touch document.hpp, which everything includes.)
std::string emit_yaml(const Json& root, const std::string& header_comment = {});

// The schema-2 document: `schema: 2` first, the other keys in their order, each new block where
// the v1 block it replaces was. Throws srt::Error (file:line:column, key path, what to do) for a
// recipe already in schema 2, a variants file, and every key it cannot rewrite (never a silent drop).
Json migrate_to_schema2(const Document& v1);

// migrate_to_schema2() as YAML (yaml-cpp's emitter), under a first line saying where it came from
// and that the original's comments (and anchors) are not kept. `source` names the input file.
std::string migrate_to_schema2_yaml(const Document& v1, const std::string& source);

}  // namespace srt

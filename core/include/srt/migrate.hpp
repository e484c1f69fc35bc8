// `srt-helper migrate`: a v1-layout srt-slurm recipe rewritten in srt-slurm 2.x's `schema: 2`
// layout, key by key as `srtctl migrate` does (NVIDIA/srt-slurm
// src/srtctl/core/migrate.py, docs/legacy-v1.md), and exactly the inverse of what
// schema2_normalize.cpp reads back, so both spellings make the same Plan.
//
// Pure: a Document in (the user's file as parse_yaml read it, no --set/--unset), a Json or text out.
#pragma once
#include <string>

#include "srt/document.hpp"

namespace srt {

// The schema-2 document: `schema: 2` first, the other keys in their order, each new block where
// the v1 block it replaces was. Throws srt::Error (file:line:column, key path, what to do) for a
// recipe already in schema 2, a variants file, and every key it cannot rewrite (never a silent drop).
Json migrate_to_schema2(const Document& v1);

// migrate_to_schema2() as YAML (yaml-cpp's emitter), under a first line saying where it came from
// and that the original's comments (and anchors) are not kept. `source` names the input file.
std::string migrate_to_schema2_yaml(const Document& v1, const std::string& source);

}  // namespace srt

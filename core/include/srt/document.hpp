// A YAML file read the way srtctl reads it (PyYAML safe_load, YAML 1.1), as JSON values, with the
// position of every key path so later stages can point at the line that caused a problem.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "srt/error.hpp"

namespace srt {

using Json = nlohmann::ordered_json;

// An object of `n` keys without copies. ordered_json's object is a vector of
// pair<const std::string, Json>: its const key makes the pair's move constructor throwing, so every
// growth of that vector deep-copies each value already in it. Building a mapping key by key
// without this copies its subtrees log2(n) times over.
inline Json object_of_capacity(std::size_t n) {
  Json j = Json::object();
  j.get_ref<Json::object_t&>().reserve(n);
  return j;
}

struct LoadLimits {
  std::size_t max_bytes = 1 << 20;     // recipes are a few KB; refuse anything absurd before parsing
  int max_depth = 64;                  // deeper nesting is refused before yaml-cpp recurses into it
  std::size_t max_nodes = 200000;      // after alias expansion: stops "billion laughs"
};

struct Document {
  std::string file;                    // name used in messages (path as given, or "<recipe>")
  Json root;
  std::map<std::string, Mark> marks;   // key path -> where its key (or item) starts
  std::vector<Diagnostic> warnings;    // duplicate keys and the like
  // Key paths whose value came from the command line (--set/--unset) -> the option as written;
  // diagnostics under them name the option instead of a line of the file.
  std::map<std::string, std::string> overrides;
  // A schema-2 recipe normalized into the v1 layout: v1 key path (or prefix) -> the schema-2 key
  // path the user wrote ("resources.prefill_nodes" -> "roles.prefill.nodes"), so a diagnostic on a
  // normalized path names what is in the file. Empty for a v1 recipe. A list, later entries winning:
  // a recipe has a dozen or two, written on every load and looked up only for a diagnostic.
  std::vector<std::pair<std::string, std::string>> aliases;

  // `path` in the user's spelling: the alias of its longest aliased prefix, else `path`.
  std::string written_path(const std::string& path) const;

  // The mark of `path` (in the user's spelling), or of its nearest ancestor that has one.
  Mark mark_of(const std::string& path) const;
  Diagnostic at(const std::string& path, std::string message, std::string hint = {}) const;
  // The override that set `path` or an ancestor of it, or "".
  std::string origin_of(const std::string& path) const;
};

struct ReadOptions {
  LoadLimits limits;
  bool strict = false;  // duplicate keys become errors instead of warnings
  // Recipes only: refuse the v1 layout and v1-only keys, as srtctl's require_current_schema
  // (core/config.py after v2.2.1) does; v2.2.1 itself still loads both.
  bool current_schema = false;
};

Document parse_yaml(const std::string& text, const std::string& name, const ReadOptions& opts = {});

// `root` as YAML text, written by yaml-cpp's emitter (key order kept) so that parse_yaml() reads
// back the same value: strings YAML 1.1 would read as another type ("1", "true", "08:00:00") are
// quoted. A non-empty header_comment becomes the first line, "# <header_comment>".
std::string emit_yaml(const Json& root, const std::string& header_comment = {});

// Key-path helpers shared by the loaders: "a.b[2].c".
std::string join_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, std::size_t index);

// How Python's str() renders a scalar that PyYAML produced (srtctl formats flags and env with it):
// true -> "True", 0.84 -> "0.84", 1e-05 -> "1e-05", null -> "None".
std::string python_str(const Json& scalar);

}  // namespace srt

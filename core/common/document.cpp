// The Document's key-path helpers: where a key path came from (the file's line, a --set option, a
// schema-2 spelling). No YAML here: the node side builds Documents from the snapshot's JSON and
// must not pull yaml-cpp into slurmstepd (docs/design.md "The snapshot").
#include "srt/document.hpp"

namespace srt {

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

Mark Document::mark_of(const std::string& path) const {
  std::string p = written_path(path);  // a normalized schema-2 recipe keeps the file's marks only
  while (true) {
    auto it = marks.find(p);
    if (it != marks.end()) return it->second;
    if (p.empty()) return {};
    std::size_t cut = p.find_last_of(".[");
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
}

std::string Document::origin_of(const std::string& path) const {
  for (const auto& [key, origin] : overrides) {
    if (path == key || path.compare(0, key.size() + 1, key + ".") == 0 ||
        path.compare(0, key.size() + 1, key + "[") == 0)
      return origin;
  }
  return {};
}

std::string Document::written_path(const std::string& path) const {
  std::string p = path;
  while (!aliases.empty()) {
    for (auto it = aliases.rbegin(); it != aliases.rend(); ++it)
      if (it->first == p) return it->second + path.substr(p.size());
    if (p.empty()) break;
    std::size_t cut = p.find_last_of(".[");
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
  return path;
}

Diagnostic Document::at(const std::string& path, std::string message, std::string hint) const {
  Diagnostic d;
  d.key_path = written_path(path);
  d.message = std::move(message);
  d.hint = std::move(hint);
  std::string origin = origin_of(d.key_path);
  if (!origin.empty()) {
    d.file = origin;  // the value came from the command line, not from the file
  } else {
    d.file = file;
    d.mark = mark_of(d.key_path);
  }
  return d;
}

}  // namespace srt

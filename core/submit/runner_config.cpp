#include "srt/runner_config.hpp"

#include "srt/error.hpp"

namespace srt {

namespace {

// `key` of `runner` as a mapping of strings (none when absent or null).
std::map<std::string, std::string> string_map(const Document& runner, const std::string& key) {
  std::map<std::string, std::string> out;
  const auto it = runner.root.find(key);
  if (it == runner.root.end() || it->is_null()) return out;
  if (!it->is_object())
    throw Error(runner.at(key, key + " must be a mapping of alias: value", "fix the runner's srtslurm.yaml"));
  for (const auto& [alias, value] : it->items()) {
    if (!value.is_string())
      throw Error(runner.at(join_path(key, alias), "an alias must map to a string", "fix the runner's srtslurm.yaml"));
    out[alias] = value.get<std::string>();
  }
  return out;
}

// The runner's aliases the admin's `key` does not define; an alias both define differently is
// the admin's, and named in `ignored`.
std::map<std::string, std::string> new_aliases(const Document& runner, const Json& admin, const std::string& key,
                                               std::vector<std::string>& ignored) {
  std::map<std::string, std::string> out;
  const auto theirs = admin.find(key);
  for (const auto& [alias, value] : string_map(runner, key)) {
    const bool defined = theirs != admin.end() && theirs->is_object() && theirs->contains(alias);
    if (!defined) out[alias] = value;
    else if ((*theirs)[alias] != Json(value)) ignored.push_back(join_path(key, alias));
  }
  return out;
}

// Replaces the string at root[outer][inner] by its alias's value; a line saying so.
void resolve(Json& root, const char* outer, const char* inner, const std::map<std::string, std::string>& aliases,
             std::vector<std::string>& said) {
  const auto o = root.find(outer);
  if (o == root.end() || !o->is_object()) return;
  const auto i = o->find(inner);
  if (i == o->end() || !i->is_string()) return;
  const auto a = aliases.find(i->get<std::string>());
  if (a == aliases.end()) return;
  said.push_back(std::string(outer) + "." + inner + ": " + a->first + " -> " + a->second);
  *i = a->second;
}

}  // namespace

RunnerConfig read_runner_config(const Document& runner, const Json& admin) {
  RunnerConfig c;
  c.file = runner.file;
  if (!runner.root.is_object())
    throw Error(runner.at("", "a cluster configuration must be a mapping", "fix the runner's srtslurm.yaml"));
  c.model_paths = new_aliases(runner, admin, "model_paths", c.ignored);
  c.containers = new_aliases(runner, admin, "containers", c.ignored);
  if (const auto t = runner.root.find("default_time_limit"); t != runner.root.end() && !t->is_null()) {
    if (!t->is_string())
      throw Error(runner.at("default_time_limit", "default_time_limit must be a string (\"HH:MM:SS\")",
                            "fix the runner's srtslurm.yaml"));
    c.default_time_limit = t->get<std::string>();
  }
  for (const auto& [key, value] : runner.root.items()) {
    if (key == "model_paths" || key == "containers" || key == "default_time_limit") continue;
    const auto theirs = admin.find(key);
    if (theirs == admin.end() || *theirs != value) c.ignored.push_back(key);
  }
  return c;
}

std::vector<std::string> apply_runner_config(Json& root, const RunnerConfig& c) {
  std::vector<std::string> said;
  resolve(root, "model", "path", c.model_paths, said);
  resolve(root, "model", "container", c.containers, said);
  resolve(root, "frontend", "container_image", c.containers, said);
  resolve(root, "benchmark", "container_image", c.containers, said);
  if (!c.default_time_limit.empty()) {
    Json& slurm = root["slurm"];
    if (!slurm.is_object()) slurm = Json::object();
    if (!slurm.contains("time_limit") || slurm["time_limit"].is_null()) {
      slurm["time_limit"] = c.default_time_limit;
      said.push_back("slurm.time_limit: " + c.default_time_limit + " (default_time_limit)");
    }
  }
  return said;
}

}  // namespace srt

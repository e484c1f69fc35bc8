#include "common.hpp"
#include "commands.hpp"
#include "srt/error.hpp"
#include "srt/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace srt::helper {

void add_recipe_flags(CLI::App* cmd, RecipeFlags& flags) {
  cmd->add_option("--profile", flags.profile, "cluster profile (default: $SRTSLURM_CONFIG, then " SRT_DEFAULT_PROFILE ")");
  cmd->add_flag("--strict", flags.strict, "duplicate keys are errors, not warnings");
  cmd->add_flag("--current-schema", flags.current_schema,
                "refuse recipes without schema: 2 and v1-only keys (what srtctl after v2.2.1 requires)");
  // One value per --set/--unset (repeat the option for more): a list-taking option would swallow
  // the recipe argument that follows it now that -f may name the recipe instead.
  cmd->add_option("--set", flags.set, "override key.path=VALUE (VALUE is YAML; [N] indexes a list; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--unset", flags.unset, "remove key.path (repeatable)")->allow_extra_args(false);
}

std::string find_profile_path(const std::string& explicit_path, const std::string& fallback) {
  const char* env = std::getenv("SRTSLURM_CONFIG");
  struct stat st {};
  const bool exists = !fallback.empty() && ::stat(fallback.c_str(), &st) == 0;
  return choose_profile_path(explicit_path, env ? env : "", fallback, exists);
}

Profile load_profile(const std::string& explicit_path, const ReadOptions& read) {
  const std::string path = find_profile_path(explicit_path);
  if (path.empty()) return default_profile();
  return load_profile_file(path, read);
}

RecipeOptions recipe_options(const RecipeFlags& flags, const Profile& profile) {
  RecipeOptions opts;
  opts.read.strict = flags.strict;
  opts.read.current_schema = flags.current_schema;
  opts.set = flags.set;
  opts.unset = flags.unset;
  opts.default_gpus_per_node = profile.gpus_per_node;
  return opts;
}

void print_warnings(const std::vector<Diagnostic>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.str().c_str());
}

std::map<std::string, std::string> warn_preview_addresses(DataAddresses found) {
  for (auto& d : found.problems) {
    d.hint = "planned with the node name here; a job on this node would fail: " + d.hint;
    std::fprintf(stderr, "warning: %s\n", d.str().c_str());
  }
  return std::move(found.by_node);
}

void print_warnings_once(const std::vector<Diagnostic>& warnings, std::vector<std::string>& shown) {
  for (const auto& w : warnings) {
    std::string text = w.str();
    if (std::find(shown.begin(), shown.end(), text) != shown.end()) continue;
    std::fprintf(stderr, "warning: %s\n", text.c_str());
    shown.push_back(std::move(text));
  }
}

void print_unsupported_note(const std::string& path, const Recipe& recipe) {
  if (recipe.unsupported_keys.empty()) return;
  std::string keys;
  for (const auto& k : recipe.unsupported_keys) keys += (keys.empty() ? "" : ", ") + k;
  std::fprintf(stderr, "note: %s: srtctl knows these, srt-spank cannot launch them yet: %s\n", path.c_str(), keys.c_str());
}

RecipeRef recipe_ref(const std::string& arg) {
  return split_recipe_ref(arg, [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  });
}

OpenedRecipe open_recipe(const std::string& arg, const RecipeOptions& opts) {
  OpenedRecipe out;
  out.ref = recipe_ref(arg);
  out.sources = open_recipe_text(read_text_file(out.ref.path, opts.read.limits.max_bytes), out.ref, opts);
  out.variants = !out.sources.empty() && !out.sources.front().selector.empty();
  return out;
}

RecipeSource open_one_recipe(const std::string& arg, const RecipeOptions& opts, const std::string& command, RecipeRef* ref) {
  OpenedRecipe opened = open_recipe(arg, opts);
  if (ref) *ref = opened.ref;
  if (opened.sources.size() != 1) {
    std::vector<std::string> selectors;
    for (const auto& s : opened.sources) selectors.push_back(s.selector);
    std::string list;
    for (const auto& s : selectors) list += (list.empty() ? "" : ", ") + s;
    Diagnostic d;
    d.file = opened.ref.path;
    d.message = opened.ref.selector.empty()
                    ? "this is a variants file with " + std::to_string(selectors.size()) + " variants, and " + command +
                          " runs one"
                    : "':" + opened.ref.selector + "' selects " + std::to_string(selectors.size()) + " variants, and " +
                          command + " runs one";
    d.hint = "name one as " + opened.ref.path + ":SELECTOR; the variants: " + list;
    throw Error(std::move(d));
  }
  return std::move(opened.sources.front());
}

OneRecipe load_one_recipe(const std::string& arg, const RecipeOptions& opts, const std::string& command) {
  OneRecipe one;
  RecipeSource source = open_one_recipe(arg, opts, command, &one.ref);
  one.selector = source.selector;
  one.name = source.name;
  one.recipe = load_recipe_source(std::move(source), opts);
  return one;
}

std::vector<std::string> recipe_arguments(const std::vector<std::string>& positional, const std::vector<std::string>& dash_f) {
  std::vector<std::string> out = positional;
  out.insert(out.end(), dash_f.begin(), dash_f.end());
  if (out.empty()) throw CLI::RequiredError("RECIPE (or -f FILE[:SELECTOR])");
  return out;
}

bool load_profile_or_usage_error(const std::string& explicit_path, Profile& out) {
  try {
    out = load_profile(explicit_path);
    return true;
  } catch (const Error& e) {
    std::fprintf(stderr, "srt-helper: cluster profile: %s\n", e.what());
    exit_code = 2;
    return false;
  }
}

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

NodeName this_node(const std::string& given) {
  if (!given.empty()) return {given, true};
  if (const char* n = std::getenv("SLURMD_NODENAME"); n && *n) return {n, true};
  char host[256] = "";
  if (::gethostname(host, sizeof host - 1) != 0) return {};
  const std::string h = host;
  return {h.substr(0, h.find('.')), false};
}

std::string this_node_name(const std::string& given) { return this_node(given).name; }

std::string executable_path() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : "";
}

std::string executable_dir() {
  const std::string path = executable_path();
  return path.substr(0, path.rfind('/'));
}

}  // namespace srt::helper

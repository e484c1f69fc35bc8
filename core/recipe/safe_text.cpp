// Keys, names and paths of a recipe that land where a character changes meaning: srun's and
// sbatch's argv (--KEY=VALUE), process environments (NAME=VALUE), pyxis's --container-mounts
// (SRC:DST[:FLAGS],...) and file names (the recipe's name is the prefix of InferenceX's result
// copies). Refused at validate with the key path and what to write instead, so `plan` shows
// exactly what runs (docs/security.md "Recipes and snapshots": an empty srun_options key
// became a bare `--`, and sbatch then took --signal=... as its script; a ',' in a mount path added
// a mount).
#include <cctype>
#include <string>
#include <vector>

#include "extract.hpp"

namespace srt::recipe_detail {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// srun/sbatch long option names: mem, cpus-per-task, container-writable, mem_bind.
bool is_option_name(const std::string& k) {
  if (k.empty() || !is_alnum(k[0])) return false;
  for (char c : k)
    if (!is_alnum(c) && c != '-' && c != '_') return false;
  return true;
}

// POSIX's portable names, what a shell can export: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(const std::string& k) {
  if (k.empty() || std::isdigit(static_cast<unsigned char>(k[0]))) return false;
  for (char c : k)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

bool has_control(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

// A key as a key path shows it: JSON-quoted when it is empty or holds what would make the path
// ambiguous or break validate's one line per problem (whitespace, control characters, '.', '"').
std::string shown(const std::string& k) {
  bool plain = !k.empty();
  for (unsigned char c : k)
    if (c <= ' ' || c == 0x7f || c == '.' || c == '"' || c == '\\' || c == '[') plain = false;
  return plain ? k : Json(k).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `k` with every character an environment name cannot hold replaced by '_'.
std::string env_name_like(const std::string& k) {
  std::string out;
  for (char c : k) out += (std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

class SafeText {
 public:
  SafeText(const Document& doc, schema::Issues& issues) : doc_(doc), root_(doc.root), issues_(issues) {}

  void run() {
    name();
    // roles.<role>.srun_options: schema 2's per-role options, kept under their own path by the
    // normalizer (schema2_normalize.cpp).
    for (const char* dict : {"srun_options", "sbatch_directives", "roles.prefill.srun_options",
                             "roles.decode.srun_options", "roles.agg.srun_options"})
      options(dict);
    for (const char* env : {"environment", "backend.prefill_environment", "backend.decode_environment",
                            "backend.aggregated_environment", "frontend.env", "benchmark.env"})
      environment(env);
    services();
    container_mounts();
    extra_mount();
    post_eval();
  }

 private:
  // `raw` is the path as the document's marks know it; `path` as the message shows it.
  void error(const std::string& raw, const std::string& path, std::string message, std::string hint) {
    if (issues_.bad(raw)) return;  // already reported by the type check
    Diagnostic d = doc_.at(raw, std::move(message), std::move(hint));
    d.key_path = path;
    issues_.error(std::move(d));
  }

  // The mapping at a dotted path of plain keys, or null.
  const Json* mapping(const std::string& dotted) const {
    const Json* cur = &root_;
    std::size_t begin = 0;
    while (true) {
      const std::size_t dot = dotted.find('.', begin);
      const std::string key = dotted.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
      if (dot == std::string::npos) break;
      begin = dot + 1;
    }
    return cur->is_object() ? cur : nullptr;
  }

  // Schema 2's services, kept whole under their own path by the normalizer: a generic one's
  // environment and srun options reach its step as the recipe's own do.
  void services() {
    const Json* list = root_.is_object() && root_.contains("services") ? &root_["services"] : nullptr;
    if (!list || !list->is_array()) return;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Json& s = (*list)[i];
      if (!s.is_object()) continue;
      const std::string base = index_path("services", i);
      if (auto e = s.find("env"); e != s.end()) environment(base + ".env", &*e);
      if (auto o = s.find("srun_options"); o != s.end()) options(base + ".srun_options", &*o);
    }
  }

  void name() {
    if (!root_.is_object() || !root_.contains("name") || !root_["name"].is_string()) return;
    const std::string n = root_["name"].get<std::string>();
    const std::string hint = "the name is the job's name and the start of its result files' names; "
                             "write one word such as dsv4-disagg-1p1d";
    if (blank(n)) return error("name", "name", "is empty", hint);
    if (n.find('/') != std::string::npos)
      return error("name", "name", "contains '/', which would put the result files in another directory", hint);
    if (n == "." || n == "..") return error("name", "name", "is '" + n + "' ('..' and '.' are directories)", hint);
    if (has_control(n)) return error("name", "name", "contains a control character (" + shown(n) + ")", hint);
  }

  void options(const std::string& dict) { options(dict, mapping(dict)); }
  void options(const std::string& dict, const Json* m) {
    if (!m || !m->is_object()) return;
    const std::string tool = dict.find("srun_options") != std::string::npos ? "srun" : "sbatch";
    for (auto it = m->begin(); it != m->end(); ++it) {
      const std::string& k = it.key();
      const std::string raw = join_path(dict, k), path = join_path(dict, shown(k));
      if (k.empty()) {
        error(raw, path, "an empty option name becomes a bare `--`, which ends " + tool + "'s options",
              "remove it, or name the option (mem: \"0\" gives --mem=0)");
      } else if (k[0] == '-') {
        error(raw, path, "is written with its dashes; the key is the option's name without the leading dashes "
                         "(srt writes `--`)",
              "write " + k.substr(k.find_first_not_of('-') == std::string::npos ? k.size() : k.find_first_not_of('-')) +
                  ": VALUE");
      } else if (!is_option_name(k)) {
        error(raw, path, "is not an option name (letters, digits, '-' and '_'): --" + shown(k) + "=VALUE would be "
                         "another argument than it looks",
              "write the option's name as the key and its value as the value (mem: 4G, not mem=4G: \"\")");
      } else if (it.value().is_string() && it.value().get<std::string>().find('\0') != std::string::npos) {
        error(raw, path, "holds a NUL character; the argument would end there", "remove it");
      }
    }
  }

  void environment(const std::string& dict) { environment(dict, mapping(dict)); }
  void environment(const std::string& dict, const Json* m) {
    if (!m || !m->is_object()) return;
    for (auto it = m->begin(); it != m->end(); ++it) {
      const std::string& k = it.key();
      const std::string raw = join_path(dict, k), path = join_path(dict, shown(k));
      if (!is_env_name(k)) {
        const auto eq = k.find('=');
        error(raw, path, "is not an environment variable name (letters, digits and '_', not starting with a digit)",
              eq != std::string::npos && eq > 0
                  ? "write the name as the key and the value as its value (" + k.substr(0, eq) + ": \"" +
                        k.substr(eq + 1) + "\", not " + k + ": ...)"
                  : "rename it, e.g. " + env_name_like(k));
      } else if (it.value().is_string() && it.value().get<std::string>().find('\0') != std::string::npos) {
        // A newline is kept: execve and srun carry it in the value as written.
        error(raw, path, "holds a NUL character; the process would see the value cut there", "remove it");
      }
    }
  }

  // One path of pyxis's SRC:DST[:FLAGS]; "" when it can be mounted, else why not.
  static std::string mount_path_problem(const std::string& p) {
    if (p.empty()) return "is empty";
    if (p.find(',') != std::string::npos)
      return "contains ',', which separates mounts in pyxis's --container-mounts: it would add a mount";
    if (p.find(':') != std::string::npos)
      return "contains ':', which separates SRC:DST:FLAGS in pyxis's --container-mounts";
    if (has_control(p)) return "contains a control character";
    return "";
  }

  void container_mounts() {
    const Json* m = mapping("container_mounts");
    if (!m) return;
    const std::string hint = "pyxis cannot mount a path with ',' or ':'; mount a directory above it, or a link to it "
                             "without them";
    for (auto it = m->begin(); it != m->end(); ++it) {
      const std::string raw = join_path("container_mounts", it.key()), path = join_path("container_mounts", shown(it.key()));
      if (const std::string why = mount_path_problem(it.key()); !why.empty()) {
        error(raw, path, "the host path " + why, hint);
      } else if (it.value().is_string()) {
        if (const std::string in = mount_path_problem(it.value().get<std::string>()); !in.empty())
          error(raw, path, "the container path " + in, hint);
      }
    }
  }

  void extra_mount() {
    if (!root_.is_object() || !root_.contains("extra_mount") || !root_["extra_mount"].is_array()) return;
    const Json& list = root_["extra_mount"];
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string()) continue;  // the type check reports it
      const std::string spec = list[i].get<std::string>();
      const std::string path = index_path("extra_mount", i);
      const std::string hint = "write SRC, SRC:DST or SRC:DST:FLAGS (e.g. /data:/data:ro) with paths without ',' or ':'";
      if (spec.find(',') != std::string::npos) {
        error(path, path, "contains ',', which separates mounts in pyxis's --container-mounts: it would add a mount", hint);
        continue;
      }
      if (has_control(spec)) {
        error(path, path, "contains a control character", hint);
        continue;
      }
      std::vector<std::string> fields;
      for (std::size_t begin = 0;;) {
        const std::size_t colon = spec.find(':', begin);
        fields.push_back(spec.substr(begin, colon == std::string::npos ? std::string::npos : colon - begin));
        if (colon == std::string::npos) break;
        begin = colon + 1;
      }
      if (fields.size() > 3)
        error(path, path, "has " + std::to_string(fields.size()) + " ':'-separated fields; pyxis reads SRC[:DST[:FLAGS]]", hint);
      else if (fields[0].empty() || (fields.size() > 1 && fields[1].empty()))
        error(path, path, "has an empty path", hint);
      else if (fields.size() == 3 && fields[2].empty())
        error(path, path, "ends with ':' (no FLAGS after it)", hint);
    }
  }

  // srtctl's PostEvalConfig refuses a name that is no identifier and an empty command.
  void post_eval() {
    const Json* pe = mapping("post_eval");
    if (!pe) return;
    if (auto e = pe->find("passthrough_env"); e != pe->end() && e->is_array())
      for (std::size_t i = 0; i < e->size(); ++i) {
        const Json& v = (*e)[i];
        const std::string path = index_path("post_eval.passthrough_env", i);
        if (v.is_string() && !is_env_name(v.get<std::string>()))
          error(path, path, "'" + shown(v.get<std::string>()) + "' is not an environment variable name",
                "give the variable's name, e.g. EVAL_CONC");
      }
    if (auto c = pe->find("command"); c != pe->end() && c->is_array()) {
      if (c->empty())
        error("post_eval.command", "post_eval.command", "is empty",
              "give the eval's argv, e.g. [bash, \"{infmax_workspace}/benchmarks/multi_node/srt_eval.sh\", \"{endpoint}\"]");
      else if (c->front().is_string() && blank(c->front().get<std::string>()))
        error(index_path("post_eval.command", 0), index_path("post_eval.command", 0), "the program to run is empty",
              "give the eval's argv");
    }
  }

  const Document& doc_;
  const Json& root_;
  schema::Issues& issues_;
};

}  // namespace

void check_safe_text(const Document& doc, schema::Issues& issues) { SafeText(doc, issues).run(); }

}  // namespace srt::recipe_detail

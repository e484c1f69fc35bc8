// What each role needs from its image, the probe's arguments for it, and the missing pieces as
// one line each: the checks srtctl's users asked for before a model loads (a nightly image
// without a flag or a Mooncake fix was found only at load).
#include <algorithm>
#include <regex>
#include <set>

#include "srt/engines.hpp"
#include "srt/plan.hpp"  // names_worker: roles arrive as names (probe answers, command lines)
#include "srt/preflight.hpp"
#include "srt/untrusted_json.hpp"

namespace srt {
namespace {

// The scripts a benchmark command runs by absolute path (/infmax-workspace/.../benchmark_serving.py);
// paths built from variables cannot be known before the step runs and are left out.
std::vector<std::string> scripts_in(const std::string& command) {
  static const std::regex path(R"((^|[\s"'=])(/[A-Za-z0-9_./+-]+\.(py|sh)))");
  std::vector<std::string> out;
  for (std::sregex_iterator it(command.begin(), command.end(), path), end; it != end; ++it)
    if (std::find(out.begin(), out.end(), (*it)[2].str()) == out.end()) out.push_back((*it)[2].str());
  return out;
}

// The module a command runs with -m, else "".
std::string module_of(const std::vector<std::string>& c) {
  for (std::size_t i = 0; i + 1 < c.size(); ++i)
    if (c[i] == "-m") return c[i + 1];
  return {};
}

// The engine's command as the Plan's worker argv starts with it (core/plan/atom.cpp, sglang.cpp,
// vllm.cpp), and its profile key. Without a recipe (`srt-helper preflight` alone): ATOM's.
std::pair<const std::vector<std::string>*, const char*> engine_of(const Recipe* r, const Profile& p) {
  const std::string type = r ? r->backend.type : "";
  if (type == "sglang") return {&p.sglang_command, "sglang_command"};
  if (type == "vllm") return {&p.vllm_command, "vllm_command"};
  return {&p.engine_command, "engine_command"};
}

// The router's command for the recipe's frontend (atomesh.cpp, sglang_router.cpp,
// vllm_router.cpp); none for a frontend that runs no router of its own.
std::pair<const std::vector<std::string>*, const char*> router_of(const Recipe* r, const Profile& p) {
  const std::string type = r ? r->frontend.type : "atomesh";
  if (type == "atomesh") return {&p.router_command, "router_command"};
  if (type == "sglang-router") return {&p.sglang_router_command, "sglang_router_command"};
  if (type == "vllm-router") return {&p.vllm_router_command, "vllm_router_command"};
  return {nullptr, ""};
}

// The key of a role's engine flags, as written with dashes or underscores.
std::string config_text(const Json& config, const std::string& dashed) {
  std::string underscored = dashed;
  std::replace(underscored.begin(), underscored.end(), '-', '_');
  for (const auto& key : {dashed, underscored})
    if (config.is_object() && config.contains(key) && config[key].is_string()) return config[key].get<std::string>();
  return {};
}

// Whether a P/D worker of this engine moves its KV with Mooncake: ATOM's connector (mooncake,
// its only one); SGLang's --disaggregation-transfer-backend (mooncake unless the role says mori,
// nixl, ...: sgl-project/sglang python/sglang/srt/server_args.py @ 001067ff); vLLM only when its
// connector is mooncake.
bool needs_mooncake(const Recipe& recipe, const std::string& role) {
  const std::string& type = recipe.backend.type;
  if (type == "sglang") {
    const std::string backend =
        config_text(recipe.backend.config(role == "prefill" ? WorkerMode::prefill : WorkerMode::decode),
                    "disaggregation-transfer-backend");
    return backend.empty() || backend == "mooncake";
  }
  if (type == "vllm") return recipe.backend.connector == "mooncake";
  return recipe.backend.connector.empty() || recipe.backend.connector == "mooncake";
}

// Frameworks the probe reports by distribution name: every identity name it does not know
// by role (atom, mooncake, the router).
bool known_framework(const std::string& name) {
  return name == "atom" || name == "mooncake" || name == "mooncake-transfer-engine" || name == "atomesh" ||
         name == "rocm";
}

std::string memlock_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump() + " bytes";
  return "not reported as a number (" + json_excerpt(v) + ")";
}

}  // namespace

PreflightNeeds preflight_needs(const Recipe& recipe, const Profile& profile, const std::string& role) {
  PreflightNeeds n;
  n.role = role;
  n.engine = names_worker(role);
  const bool pd = role == "prefill" || role == "decode";
  n.mooncake = pd && needs_mooncake(recipe, role);
  n.router = role == "router";
  n.engine_key = engine_of(&recipe, profile).second;
  if (const auto [router, router_key] = router_of(&recipe, profile); router) {
    n.router_command = *router;
    n.router_key = router_key;
  }
  n.rdma = pd && kv_over_rdma(recipe);
  n.gid_index = n.rdma ? profile.mooncake_gid_index : -1;
  if (role == "benchmark") n.files = scripts_in(recipe.benchmark.command);
  return n;
}

std::vector<std::string> probe_interpreter(const Recipe* recipe, const Profile& profile) {
  const auto& c = *engine_of(recipe, profile).first;
  for (std::size_t i = 0; i + 1 < c.size(); ++i)
    if (c[i] == "-m") return {c.begin(), c.begin() + std::ptrdiff_t(i)};
  // A program run by name (`vllm serve`): the image's python3, in the environment the command
  // sets before the program (the lab's `env PYTHONPATH=...`).
  std::vector<std::string> out(c.begin(), c.begin() + std::ptrdiff_t(command_program_index(c)));
  out.push_back("python3");
  return out;
}

std::vector<std::string> probe_arguments(const Recipe* recipe, const Profile& profile,
                                         const std::vector<PreflightNeeds>& needs) {
  std::vector<std::string> a;
  // The engine's module: the one run with -m, else the package of its program (`vllm serve`).
  const auto& engine = *engine_of(recipe, profile).first;
  std::string module = module_of(engine);
  if (const std::size_t program = command_program_index(engine); module.empty() && program < engine.size())
    module = engine[program].substr(engine[program].rfind('/') + 1);
  if (!module.empty()) a.insert(a.end(), {"--engine-module", module});
  int gid = -1;
  std::set<std::string> files;
  for (const auto& n : needs) {
    // A router run with -m (sglang_router.launch_router) is a module of the image's python;
    // another (atomesh, vllm-router) a program on its PATH.
    if (n.router && !n.router_command.empty()) {
      const std::string m = module_of(n.router_command);
      const std::size_t program = command_program_index(n.router_command);
      if (!m.empty()) a.insert(a.end(), {"--router-module", m});
      else if (program < n.router_command.size()) a.insert(a.end(), {"--router", n.router_command[program]});
    }
    gid = std::max(gid, n.gid_index);
    files.insert(n.files.begin(), n.files.end());
  }
  for (const auto& f : files) a.insert(a.end(), {"--file", f});
  if (gid >= 0) a.insert(a.end(), {"--gid-index", std::to_string(gid)});
  if (recipe) {
    for (const auto& [name, version] : recipe->identity.frameworks)
      if (!known_framework(name)) a.insert(a.end(), {"--framework", name});
    // The model the engine loads (an hf: id), not the identity's: that is what is compared.
    const std::string& model = recipe->model.path;
    if (model.rfind("hf:", 0) == 0) a.insert(a.end(), {"--model-repo", model.substr(3)});
  }
  return a;
}

std::string found_line(const Fingerprint& f, const PreflightNeeds& n) {
  const auto version = [](const std::string& v) { return v.empty() ? std::string("(no version)") : v; };
  std::vector<std::string> parts;
  if (n.engine)
    parts.push_back(f.engine_module + " " + version(f.engine_version) +
                    (f.engine_commit.empty() ? "" : ", commit " + f.engine_commit));
  if (n.mooncake) parts.push_back("mooncake " + version(f.mooncake_version));
  if (n.router)
    parts.push_back((f.router_command.empty() ? std::string("router") : f.router_command) + " " + version(f.router_version));
  if (!n.files.empty()) {
    std::size_t present = 0;
    for (const auto& file : n.files) present += f.files.count(file) && f.files.at(file);
    parts.push_back(std::to_string(present) + " of " + std::to_string(n.files.size()) + " script(s) there");
  }
  std::string line = n.role + (f.node.empty() ? "" : " on " + f.node) + ":";
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i ? "; " : " ") + parts[i];
  return parts.empty() ? line + " nothing to check" : line;
}

std::vector<std::string> missing_pieces(const Fingerprint& f, const PreflightNeeds& n) {
  std::vector<std::string> out;
  const std::string where = n.role + (f.node.empty() ? "" : " on " + f.node) + ": ";
  const std::string python = f.python.empty() ? "the image's python3" : f.python;
  const std::string engine_key = n.engine_key.empty() ? "engine_command" : n.engine_key;
  const std::string router_key = n.router_key.empty() ? "router_command" : n.router_key;
  if (n.engine && !f.engine_found)
    out.push_back(where + "the engine module " + f.engine_module + " is not there for " + python + " (" +
                  f.engine_error + "); the profile's " + engine_key + " cannot start");
  if (n.mooncake && !f.mooncake_found)
    out.push_back(where + "Mooncake is not importable (import mooncake.engine: " + f.mooncake_error +
                  "); prefill/decode need it for KV transfer");
  if (n.router && f.router_path.empty()) {
    const std::string command = f.router_command.empty() ? std::string("(none)") : f.router_command;
    if (!module_of(n.router_command).empty())
      out.push_back(where + "the router module " + module_of(n.router_command) + " is not there for " + python +
                    "; the profile's " + router_key + " cannot start");
    else
      out.push_back(where + "the router binary " + command + " is not on PATH; the profile's " + router_key +
                    " cannot start");
  }
  for (const auto& file : n.files) {
    auto it = f.files.find(file);
    if (it == f.files.end() || !it->second)
      out.push_back(where + file + " does not exist; the benchmark command runs it (mount it, e.g. the profile's default_mounts)");
  }
  if (n.rdma) {
    // The probe's facts, each of the type it writes; another type counts as not found.
    const Json& r = f.rdma;
    if (!json_field::boolean(r, "dev_infiniband").value_or(false))
      out.push_back(where + "/dev/infiniband is missing or empty; RDMA needs it in the container (profile rdma_mounts)");
    if (json_field::array(r, "devices").empty())
      out.push_back(where + "no RDMA device in /sys/class/infiniband; mooncake_protocol rdma cannot work here");
    if (json_field::array(r, "provider_configs").empty() && json_field::array(r, "provider_libs").empty())
      out.push_back(where + "no verbs provider (/etc/libibverbs.d/*.driver, libibverbs/*.so); mount the host's "
                            "(profile rdma_mounts)");
    if (r.is_object() && r.contains("memlock") && json_field::text(r, "memlock").value_or("") != "unlimited")
      out.push_back(where + "memlock limit is " + memlock_text(r.at("memlock")) +
                    ", RDMA needs unlimited (srt-exec --rdma raises it when the hard limit allows)");
    if (n.gid_index >= 0 && json_field::array(r, "gid_ok").empty())
      out.push_back(where + "no RDMA device has a GID at index " + std::to_string(n.gid_index) +
                    " (profile mooncake_gid_index)");
  }
  return out;
}

}  // namespace srt

// What each role needs from its image, the probe's arguments for it, and the missing pieces as
// one line each: the checks srtctl's users asked for before a model loads (reference
// srt-slurm.md 4.3: a nightly image without a flag or a Mooncake fix was found only at load).
#include <algorithm>
#include <regex>
#include <set>

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

std::string engine_module(const Profile& profile) {
  const auto& c = profile.engine_command;
  for (std::size_t i = 0; i + 1 < c.size(); ++i)
    if (c[i] == "-m") return c[i + 1];
  return {};
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
  n.mooncake = pd && (recipe.backend.connector.empty() || recipe.backend.connector == "mooncake");
  n.router = role == "router";
  n.rdma = pd && recipe.backend.mooncake_over_rdma();
  n.gid_index = n.rdma ? profile.mooncake_gid_index : -1;
  if (role == "benchmark") n.files = scripts_in(recipe.benchmark.command);
  return n;
}

std::vector<std::string> probe_interpreter(const Profile& profile) {
  const auto& c = profile.engine_command;
  for (std::size_t i = 0; i + 1 < c.size(); ++i)
    if (c[i] == "-m") return {c.begin(), c.begin() + std::ptrdiff_t(i)};
  return {"python3"};
}

std::vector<std::string> probe_arguments(const Recipe* recipe, const Profile& profile,
                                         const std::vector<PreflightNeeds>& needs) {
  std::vector<std::string> a;
  if (const std::string m = engine_module(profile); !m.empty()) a.insert(a.end(), {"--engine-module", m});
  int gid = -1;
  std::set<std::string> files;
  for (const auto& n : needs) {
    if (n.router && !profile.router_command.empty()) a.insert(a.end(), {"--router", profile.router_command.front()});
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

std::vector<std::string> missing_pieces(const Fingerprint& f, const PreflightNeeds& n) {
  std::vector<std::string> out;
  const std::string where = n.role + (f.node.empty() ? "" : " on " + f.node) + ": ";
  const std::string python = f.python.empty() ? "the image's python3" : f.python;
  if (n.engine && !f.engine_found)
    out.push_back(where + "the engine module " + f.engine_module + " is not there for " + python + " (" +
                  f.engine_error + "); the profile's engine_command cannot start");
  if (n.mooncake && !f.mooncake_found)
    out.push_back(where + "Mooncake is not importable (import mooncake.engine: " + f.mooncake_error +
                  "); prefill/decode need it for KV transfer");
  if (n.router && f.router_path.empty())
    out.push_back(where + "the router binary " + (f.router_command.empty() ? std::string("(none)") : f.router_command) +
                  " is not on PATH; the profile's router_command cannot start");
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

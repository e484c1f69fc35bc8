// The recipe's `identity` (what should run) against the fingerprints (what the images hold), as
// srtctl compares them (SemiAnalysisAI/srt-slurm src/srtctl/core/fingerprint.py @ 370cc7ba), but
// before any worker loads a model.
#include <algorithm>
#include <cctype>

#include "srt/plan.hpp"  // names_worker: roles arrive as names (probe answers, command lines)
#include "srt/preflight.hpp"

namespace srt {
namespace {

bool is_commit(const std::string& s) {
  if (s.size() < 7 || s.size() > 40) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) && !std::isupper(c); });
}

// setuptools_scm's "+g<hash>" local part: 0.1.4.dev113+g5837907f3(.d20260825)
std::string commit_in_version(const std::string& version) {
  const auto g = version.find("+g");
  if (g == std::string::npos) return {};
  std::string out;
  for (std::size_t i = g + 2; i < version.size() && std::isxdigit(static_cast<unsigned char>(version[i])); ++i)
    out += char(std::tolower(static_cast<unsigned char>(version[i])));
  return out;
}

bool prefix_either_way(const std::string& a, const std::string& b) {
  if (a.size() < 7 || b.size() < 7) return false;
  const std::size_t n = std::min(a.size(), b.size());
  return a.compare(0, n, b, 0, n) == 0;
}

std::string shown(const std::string& version, const std::string& commit) {
  if (version.empty() && commit.empty()) return "unknown";
  if (commit.empty() || commit_in_version(version) == commit) return version;
  if (version.empty()) return "commit " + commit;
  return version + " (commit " + commit + ")";
}

std::string where(const Fingerprint& f) { return (f.step.empty() ? f.role : f.step) + (f.node.empty() ? "" : " on " + f.node); }

}  // namespace

bool framework_matches(const std::string& expected, const std::string& found_version, const std::string& found_commit) {
  if (expected.empty()) return true;
  if (!found_version.empty() && found_version == expected) return true;
  if (!is_commit(expected)) return false;
  for (const std::string& c : {found_commit, commit_in_version(found_version)})
    if (prefix_either_way(expected, c)) return true;
  return false;
}

std::string IdentityMismatch::line() const { return cause() + (where.empty() ? "" : " (" + where + ")"); }

std::string IdentityMismatch::cause() const { return field + ": expected " + expected + ", found " + found; }

std::vector<IdentityMismatch> compare_identity(const Identity& id, const std::vector<Fingerprint>& prints) {
  std::vector<IdentityMismatch> out;
  auto check = [&](const std::string& field, const std::string& expected, const std::string& version,
                   const std::string& commit, const Fingerprint& f) {
    if (!framework_matches(expected, version, commit))
      out.push_back({field, expected, shown(version, commit), where(f), f.role, f.node});
  };
  for (const auto& f : prints) {
    const bool engine = names_worker(f.role);
    if (engine) {
      check("identity.container.image", id.container_image, f.image, "", f);
      check("identity.model.repo", id.model_repo, f.model_repo, "", f);
      check("identity.model.revision", id.model_revision, f.model_revision,
            is_commit(f.model_revision) ? f.model_revision : "", f);
    }
    for (const auto& [name, expected] : id.frameworks) {
      const std::string field = "identity.frameworks." + name;
      if (name == "atom") {
        if (engine) check(field, expected, f.engine_version, f.engine_commit, f);
      } else if (name == "mooncake" || name == "mooncake-transfer-engine") {
        if (f.role == "prefill" || f.role == "decode") check(field, expected, f.mooncake_version, "", f);
      } else if (name == "atomesh") {
        if (f.role == "router") check(field, expected, f.router_version, "", f);
      } else if (name == "rocm") {
        if (engine) check(field, expected, f.rocm_version, "", f);
      } else if (engine) {
        auto it = f.frameworks.find(name);
        check(field, expected, it == f.frameworks.end() ? "" : it->second, "", f);
      }
    }
  }
  return out;
}

std::string common_kv_capability(const std::vector<Fingerprint>& prints) {
  std::string common;
  for (const auto& f : prints) {
    if (!names_worker(f.role)) continue;
    const std::string& c = f.kv_events_capability;
    if (c == "unknown" || c.empty()) return "unknown";
    if (common.empty()) common = c;
    else if (common != c) common = "none";  // images that disagree: only what all can do
  }
  return common.empty() ? "unknown" : common;
}

std::string common_atom_nic_pick(const std::vector<Fingerprint>& prints) {
  std::string common;
  for (const Fingerprint& f : prints) {
    if (!names_worker(f.role)) continue;
    if (!common.empty() && common != f.nic_pick) return "unknown";
    common = f.nic_pick;
  }
  return common;
}

std::string common_rdma_nic_selection(const std::vector<Fingerprint>& prints) {
  std::string common;
  for (const auto& f : prints) {
    if (!names_worker(f.role)) continue;
    const std::string& c = f.rdma_nic_selection;
    if (c != "all-listed" && c != "per-rank") return "unknown";
    if (common.empty() || c == "all-listed") common = c;  // per-rank only if every image picks per rank
  }
  return common.empty() ? "unknown" : common;
}

}  // namespace srt

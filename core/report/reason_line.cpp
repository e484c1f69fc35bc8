#include "srt/reason_line.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace srt {
namespace {

constexpr std::size_t kMinCause = 40;
constexpr std::size_t kMaxWords = 200;

std::string cut(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n > 3 ? n - 3 : 0) + "...";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (c >= 0x20 && c != 0x7f) out += char(c);
  const auto first = out.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return out.substr(first, out.find_last_not_of(' ') - first + 1);
}

// Slurm's own lines about the step ("srun: error: node1: task 0: Exited with exit code 125",
// "slurmstepd: error: *** STEP 12.3 ON node1 CANCELLED ***") say that it ended, not why.
bool from_slurm(const std::string& l) { return l.rfind("srun:", 0) == 0 || l.rfind("slurmstepd:", 0) == 0; }

bool reads_as_error(const std::string& l) {
  const std::string s = lower(l);
  for (const char* w : {"error", "can't", "cannot", "not found", "denied", "no such", "did not resolve", "failed"})
    if (s.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string group_problems(const std::vector<RoleProblem>& problems, std::size_t budget) {
  // Each role's causes, in order, each once.
  std::vector<std::pair<std::string, std::vector<std::string>>> roles;  // "role on node" -> causes
  for (const auto& p : problems) {
    const std::string who = p.role + (p.node.empty() ? "" : " on " + p.node);
    auto it = std::find_if(roles.begin(), roles.end(), [&](const auto& r) { return r.first == who; });
    if (it == roles.end()) it = roles.insert(roles.end(), {who, {}});
    if (std::find(it->second.begin(), it->second.end(), p.cause) == it->second.end()) it->second.push_back(p.cause);
  }
  // Roles with the same causes share a clause.
  std::vector<std::pair<std::vector<std::string>, std::string>> clauses;  // roles -> cause
  for (const auto& [who, causes] : roles) {
    std::string cause;
    for (const auto& c : causes) cause += (cause.empty() ? "" : ", ") + c;
    auto it = std::find_if(clauses.begin(), clauses.end(), [&](const auto& c) { return c.second == cause; });
    if (it == clauses.end()) it = clauses.insert(clauses.end(), {{}, cause});
    it->first.push_back(who);
  }
  std::vector<std::string> heads;
  std::size_t fixed = 0;
  for (const auto& [whos, cause] : clauses) {
    std::string head;
    for (const auto& w : whos) head += (head.empty() ? "" : ", ") + w;
    heads.push_back(head + ": ");
    fixed += heads.back().size() + (heads.size() > 1 ? 2 : 0);
  }
  const std::size_t share =
      clauses.empty() ? 0 : std::max(kMinCause, (budget > fixed ? budget - fixed : 0) / clauses.size());
  std::string out;
  for (std::size_t i = 0; i < clauses.size(); ++i)
    out += (i ? "; " : "") + heads[i] + cut(clauses[i].second, share);
  return out;
}

std::string runtime_words(const std::vector<std::string>& last_lines) {
  std::vector<std::string> lines;
  for (const auto& l : last_lines)
    if (std::string p = printable(l); !p.empty()) lines.push_back(std::move(p));
  if (lines.empty()) return "";
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!from_slurm(*it) && reads_as_error(*it)) return cut(*it, kMaxWords);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!from_slurm(*it)) return cut(*it, kMaxWords);
  return cut(lines.back(), kMaxWords);
}

}  // namespace srt

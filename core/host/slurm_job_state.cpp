#include "srt/slurm_job_state.hpp"

#include <sstream>

namespace srt {

std::string scontrol_field(const std::string& show_job, const std::string& key) {
  const std::string needle = key + "=";
  for (std::size_t at = show_job.find(needle); at != std::string::npos; at = show_job.find(needle, at + 1)) {
    if (at != 0 && show_job[at - 1] != ' ' && show_job[at - 1] != '\n') continue;  // "ArrayJobState="
    const std::size_t start = at + needle.size();
    const std::size_t end = show_job.find_first_of(" \n", start);
    return show_job.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return "";
}

bool ended_by_node_failure(const std::string& show_job) {
  const std::string state = scontrol_field(show_job, "JobState");
  return state == "NODE_FAIL" || scontrol_field(show_job, "Reason") == "NodeDown";
}

std::vector<NodeHealth> parse_sinfo_nodes(const std::string& text) {
  std::vector<NodeHealth> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find('|');
    const auto b = a == std::string::npos ? a : line.find('|', a + 1);
    if (b == std::string::npos || a == 0) continue;
    std::string reason = line.substr(b + 1);
    while (!reason.empty() && (reason.back() == '\r' || reason.back() == ' ')) reason.pop_back();
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), reason});
  }
  return out;
}

bool node_failed(const NodeHealth& node) {
  const std::string& s = node.state;
  if (!s.empty() && s.back() == '*') return true;  // not responding
  return s.rfind("down", 0) == 0 || s.rfind("fail", 0) == 0;
}

}  // namespace srt

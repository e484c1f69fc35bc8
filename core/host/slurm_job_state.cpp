#include "srt/slurm_job_state.hpp"

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

bool node_failed(const NodeHealth& node) {
  const std::string& s = node.state;
  if (!s.empty() && s.back() == '*') return true;  // not responding
  return s.rfind("down", 0) == 0 || s.rfind("fail", 0) == 0;
}

}  // namespace srt

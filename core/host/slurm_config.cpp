#include "srt/slurm_config.hpp"

#include <regex>
#include <sstream>

namespace srt {

std::string to_string(const SlurmSeries& s) {
  return std::to_string(s.major) + "." + (s.minor < 10 ? "0" : "") + std::to_string(s.minor);
}

std::optional<SlurmSeries> parse_slurm_version(const std::string& text) {
  static const std::regex version(R"((?:^|\s)(\d{2,})\.(\d{1,2})(?:\.\d+)?(?:[-.\w]*)\s*$)");
  std::smatch m;
  if (!std::regex_search(text, m, version)) return std::nullopt;
  return SlurmSeries{std::stoi(m[1].str()), std::stoi(m[2].str())};
}

SlurmSeries series_of_version_number(std::uint32_t number) {
  return {int((number >> 16) & 0xff), int((number >> 8) & 0xff)};
}

std::map<std::string, std::string> parse_scontrol_config(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    const auto key_end = line.find_last_not_of(' ', eq);
    const auto key_begin = line.find_first_not_of(' ');
    if (key_end == std::string::npos || key_begin > key_end) continue;
    std::string value = line.substr(eq + 3);
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of(" \r") + 1);
    out[line.substr(key_begin, key_end - key_begin + 1)] = value == "(null)" ? "" : value;
  }
  return out;
}

}  // namespace srt

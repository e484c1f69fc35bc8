// What srt-helper doctor reads from Slurm's own tools: `scontrol show config` (Key = Value
// lines) and `scontrol --version` ("slurm 22.05.8"). A SPANK plugin loads only in the Slurm
// major.minor it was built for (Slurm's src/common/plugin.c compares plugin_version), so versions
// are compared as series.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace srt {

struct SlurmSeries {
  int major = 0;
  int minor = 0;
  bool operator==(const SlurmSeries& o) const { return major == o.major && minor == o.minor; }
  bool operator!=(const SlurmSeries& o) const { return !(*this == o); }
};

std::string to_string(const SlurmSeries& s);  // "22.05"

// "slurm 22.05.8", "slurm-wlm 22.05.8", "22.05.8" or "23.11.0-0rc1" -> {22, 5}; nullopt otherwise.
std::optional<SlurmSeries> parse_slurm_version(const std::string& text);

// A plugin's `plugin_version` (SLURM_VERSION_NUMBER of its headers: 0xMMmmuu) -> {MM, mm}.
SlurmSeries series_of_version_number(std::uint32_t number);

// "PlugStackConfig         = /etc/slurm/plugstack.conf" lines -> {"PlugStackConfig": "/etc/..."}.
// Lines without " = " (headers, blank lines) are skipped; "(null)" becomes "".
std::map<std::string, std::string> parse_scontrol_config(const std::string& text);

}  // namespace srt

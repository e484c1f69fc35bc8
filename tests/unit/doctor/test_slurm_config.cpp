#include <catch2/catch.hpp>

#include "srt/slurm_config.hpp"

TEST_CASE("Slurm versions as scontrol --version and packages print them, compared as series") {
  CHECK(srt::parse_slurm_version("slurm 22.05.8\n") == srt::SlurmSeries{22, 5});
  CHECK(srt::parse_slurm_version("slurm-wlm 24.11.1") == srt::SlurmSeries{24, 11});
  CHECK(srt::parse_slurm_version("23.11.0-0rc1") == srt::SlurmSeries{23, 11});
  CHECK_FALSE(srt::parse_slurm_version("scontrol: command not found"));
  CHECK(srt::to_string(srt::SlurmSeries{22, 5}) == "22.05");
  CHECK(srt::series_of_version_number(0x160508) == srt::SlurmSeries{22, 5});
  CHECK(srt::series_of_version_number(0x170200) != srt::SlurmSeries{22, 5});
}

TEST_CASE("scontrol show config lines become keys and values") {
  const auto c = srt::parse_scontrol_config(
      "Configuration data as of 2025-01-01T00:00:00\n"
      "PlugStackConfig         = /etc/slurm/plugstack.conf\n"
      "PluginDir               = /usr/lib/x86_64-linux-gnu/slurm-wlm\n"
      "Epilog                  = (null)\n"
      "SLURM_VERSION           = 22.05.8\n\n"
      "Cgroup Support Configuration:\n");
  CHECK(c.at("PlugStackConfig") == "/etc/slurm/plugstack.conf");
  CHECK(c.at("PluginDir") == "/usr/lib/x86_64-linux-gnu/slurm-wlm");
  CHECK(c.at("Epilog").empty());
  CHECK(c.at("SLURM_VERSION") == "22.05.8");
  CHECK(c.count("Configuration data as of 2025-01-01T00:00:00") == 0);
}

// Asks scontrol what this node runs. `scontrol show config` needs slurmctld; when it cannot be
// reached the doctor still checks what it can from `scontrol --version` and slurm.conf's place.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "checks.hpp"
#include "srt/slurm_config.hpp"

namespace srt::doctor {
namespace {

std::string run(const char* command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command, "r"), ::pclose);
  if (!pipe) return "";
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0;) out.append(buf, n);
  return out;
}

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

SlurmNode read_slurm_node(const std::string& plugstack_override) {
  SlurmNode node;
  const auto config = parse_scontrol_config(run("scontrol show config 2>/dev/null"));
  if (const auto it = config.find("SLURM_VERSION"); it != config.end()) {
    node.from_controller = true;
    node.version = it->second;
    if (const auto p = config.find("PlugStackConfig"); p != config.end()) node.plugstack = p->second;
    if (const auto d = config.find("PluginDir"); d != config.end()) node.plugin_dir = d->second;
  } else {
    const std::string v = run("scontrol --version 2>/dev/null");
    if (parse_slurm_version(v)) node.version = v.substr(v.find_first_of("0123456789"));
    while (!node.version.empty() && (node.version.back() == '\n' || node.version.back() == ' '))
      node.version.pop_back();
    // Slurm's default: plugstack.conf beside slurm.conf.
    const char* conf = std::getenv("SLURM_CONF");
    node.plugstack = dirname_of(conf && *conf ? conf : "/etc/slurm/slurm.conf") + "/plugstack.conf";
  }
  if (!plugstack_override.empty()) node.plugstack = plugstack_override;
  return node;
}

}  // namespace srt::doctor

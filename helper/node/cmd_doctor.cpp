// srt-helper doctor: run by an admin on a node after installing or upgrading srt-spank. One line
// per check (ok / warn / FAIL and what to do), exit 1 on any failure. The checks are in doctor/.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "srt/cli.hpp"
#include "srt/profile_copy.hpp"
#include "doctor/checks.hpp"

namespace srt::helper {
namespace {

struct DoctorArgs {
  std::string profile;
  std::string xml;
  std::string plugstack;
  std::string sysfs = "/sys";
  std::string procfs = "/proc";
  std::string boot_id = TopologyOptions{}.boot_id_path;
  std::string node;
  bool json = false;
};

void run_doctor(const DoctorArgs& args) {
  using namespace srt::doctor;
  Report report;
  const SlurmNode slurm = read_slurm_node(args.plugstack);
  const PluginLine line = check_plugstack(report, slurm);
  check_plugin_loads(report, slurm, line);
  check_implementation(report, line);

  // The profile the plugin will read: --profile, else the plugstack line's, else the default.
  std::string profile_path = args.profile.empty() ? line.profile_path : args.profile;
  if (profile_path.empty()) profile_path = find_profile_path("", SRT_DEFAULT_PROFILE);
  Profile profile;
  if (check_profile(report, profile_path, profile)) {
    NodeTopology topology;
    // A fixture describes another machine: this node's cache says nothing about it.
    if (args.xml.empty())
      check_topology_cache(report, line.cache_dir.empty() ? profile.topology_cache_dir : line.cache_dir,
                           args.boot_id);
    check_profile_copy(report, profile_copy_dir(line.cache_dir), profile);
    if (check_topology(report, args.xml, args.sysfs, profile, topology)) {
      check_partition_mode(report, topology);
      check_rdma(report, profile, topology, args.sysfs);
    }
    check_ports(report, profile, args.procfs);
    check_container_runtime(report, profile);
    check_gpu_isolation(report, profile);
    const NodeName node = this_node(args.node);  // doctor is an admin's tool: the host name will do
    check_data_network(report, node.name, node.known, profile);
  }
  check_srtctl(report);
  // A node that passes is ready for a first job: the smoke recipe proves the whole chain
  // (containers, ports, Mooncake, router, benchmark, results) in minutes, where a DeepSeek-V4
  // recipe first spends an hour loading its model (docs/running-recipes.md).
  if (!report.failed())
    report.ok("first-job", "run the smoke recipe before the DeepSeek-V4 ones (Qwen3-0.6B, same image, ports, Mooncake and "
                           "router wiring; minutes instead of an hour of model loading): sbatch -N2 --srt-recipe=" SRT_RECIPE_DIR
                           "/qwen3/atom/mi355x-bf16/smoke/disagg-1p1d-tp8.yaml srt-job");

  if (args.json)
    std::printf("%s\n", report.to_json().dump(2).c_str());
  else
    report.print_text(stdout);
  exit_code = report.failed() ? 1 : 0;
}

}  // namespace

void add_doctor(CLI::App& app) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* cmd = app.add_subcommand("doctor", "Check this node's srt-spank installation: plugin, plugstack, "
                                               "profile, topology, ports, RDMA");
  cmd->add_option("--profile", args->profile, "Cluster profile to check (default: the plugstack line's profile=, "
                                              "then $SRTSLURM_CONFIG, then " SRT_DEFAULT_PROFILE ")");
  cmd->add_option("--xml", args->xml, "Check this hwloc XML topology instead of the machine's (a fixture)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--plugstack", args->plugstack, "plugstack.conf to check (default: scontrol's PlugStackConfig)");
  cmd->add_option("--sysfs", args->sysfs, "Root of sysfs (default /sys; for tests)");
  cmd->add_option("--procfs", args->procfs, "Root of procfs (default /proc; for tests)");
  cmd->add_option("--boot-id", args->boot_id, "File holding this boot's id (default " + args->boot_id + "; for tests)");
  cmd->add_option("--node", args->node, "This node's Slurm name, for the data-network check (default: "
                                        "$SLURMD_NODENAME, then the host name)");
  cmd->add_flag("--json", args->json, "Print the checks as JSON");
  cmd->callback([args] { run_doctor(*args); });
}

}  // namespace srt::helper

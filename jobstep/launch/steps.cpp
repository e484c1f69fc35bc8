// One named srun step per Plan process (docs/design.md "The batch step", workers):
//   srun --overlap -N1 -n1 -w HOST --job-name=prefill_0 --srt-step=prefill:0 <container>
//        srt-exec -- <argv>
#include <string>

#include "launch.hpp"
#include "srt/contract.hpp"
#include "srt/engines.hpp"

namespace srt::launch {
namespace {

// srt-exec's checks for paths the Plan names: a local model must be where the argv says.
std::vector<std::string> exec_checks(const Job& job, const Process& p) {
  std::vector<std::string> out;
  if (!p.is_worker()) return out;
  for (std::size_t i = 0; i + 1 < p.argv.size(); ++i)
    if (p.argv[i] == "--model" && !p.argv[i + 1].empty() && p.argv[i + 1].front() == '/')
      out.insert(out.end(), {"--require", p.argv[i + 1]});
  const bool pd = p.role != Role::agg;
  if (kv_over_rdma(job.recipe) && pd) out.push_back("--rdma");  // srt-exec checks the devices
  return out;
}

}  // namespace

std::vector<std::string> StepCommand::argv() const {
  std::vector<std::string> out = srun;
  out.insert(out.end(), command.begin(), command.end());
  return out;
}

// $0: the process's name; $1: the script's path; the rest: the program. A failure is said on one
// line naming the script, which the launcher's console shows with the log's tail when the step
// ends before it is healthy (or before preflight's probe, which runs in the same step, answers:
// the probe sees what the script installed, a router binary included).
constexpr const char* kSetupPreamble =
    "script=$1; shift\n"
    "if [ ! -f \"$script\" ]; then alt=\"${script%/*}/patches/${script##*/}\"; [ -f \"$alt\" ] && script=$alt; fi\n"
    "echo \"srt-spank: setup_script $script\" >&2\n"
    "bash \"$script\"; rc=$?\n"
    "if [ \"$rc\" -ne 0 ]; then\n"
    "  echo \"srt-spank: setup_script $script failed (exit $rc): $0 was not started\" >&2\n"
    "  exit \"$rc\"\n"
    "fi\n"
    "exec \"$@\"\n";

StepCommand step_command(const Job& job, const Process& p) {
  StepCommand c;
  c.srun = {"srun", "--jobid=" + std::to_string(job.plan.job_id), "--overlap", "--nodes=1", "--ntasks=1",
            "--nodelist=" + p.node, "--job-name=" + p.step_name, "--input=none"};
  // Appended to: the per-point benchmark steps share benchmark.out.
  c.log_file = p.log_file;
  if (p.is_worker()) c.srun.push_back("--srt-step=" + p.name);
  const ContainerCommand box = container_command(job, p);
  c.srun.insert(c.srun.end(), box.srun_options.begin(), box.srun_options.end());
  // The recipe's srun_options, after the container's as srtctl orders them. pyxis's own options
  // (container-*) mean nothing without pyxis, and srun would refuse them.
  // A service's own options go over the recipe's (services[].srun_options, cpus_per_task, cpu_bind).
  EnvList options = srun_options_of(job.recipe, to_string(p.role));
  if (p.role == Role::service && std::size_t(p.index) < job.recipe.services.size()) {
    const Service& s = job.recipe.services[std::size_t(p.index)];
    EnvList own = s.srun_options;
    if (s.cpus_per_task > 0) set_env(own, "cpus-per-task", std::to_string(s.cpus_per_task));
    if (!s.cpu_bind.empty()) set_env(own, "cpu-bind", s.cpu_bind);
    for (const auto& [key, value] : own) set_env(options, key, value);
  }
  if (p.role != Role::kv_relay)
    for (const auto& [key, value] : options) {
      if (job.profile.container_runtime != ContainerRuntime::pyxis && key.rfind("container-", 0) == 0) continue;
      c.srun.push_back(value.empty() ? "--" + key : "--" + key + "=" + value);
    }

  if (p.role == Role::kv_relay) {
    // Runs on the host, as srt-helper itself: the Plan's argv[0] is "srt-helper".
    c.command = p.argv;
    if (!c.command.empty() && c.command.front() == "srt-helper") c.command.front() = job.srt_helper;
  } else {
    c.command = box.wrapper;
    c.command.push_back(box.srt_exec);
    const auto checks = exec_checks(job, p);
    c.command.insert(c.command.end(), checks.begin(), checks.end());
    c.command.push_back("--");
    if (!p.setup_script.empty()) {
      // srtctl's bash preamble: the script (configs/NAME, else configs/patches/NAME) runs first,
      // in the step's environment, its output in the step's log; the program starts only when it
      // succeeds, and then in its place (exec: the step's process is the program's).
      c.command.insert(c.command.end(), {"bash", "-c", kSetupPreamble, p.name, p.setup_script});
    }
    c.command.insert(c.command.end(), p.argv.begin(), p.argv.end());
  }
  c.env = p.env;
  // The node's NIC rule reads it (srt/contract.hpp NodeGrant::atom_nic_pick).
  if (p.is_worker() && !job.atom_nic_pick.empty()) set_env(c.env, kAtomNicPickEnv, job.atom_nic_pick);
  c.unset_env = p.unset_env;
  return c;
}

Json step_command_json(const StepCommand& c, const Process& p) {
  Json env = Json::object();
  for (const auto& [k, v] : c.env) env[k] = v;
  return Json{{"name", p.name}, {"step_name", p.step_name}, {"node", p.node}, {"srun", c.srun},
              {"command", c.command}, {"log_file", c.log_file}, {"env", env}, {"unset_env", c.unset_env}};
}

}  // namespace srt::launch

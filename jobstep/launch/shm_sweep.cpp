// What an engine leaves in shared memory when its processes are killed (srt/engines.hpp
// teardown_sweep): SGLang's multi_tokenizer_args_<pid> and sgl_shm_<kind>_<pid>_<rand> outlive a
// SIGKILL, which skips their unlink, and fill /dev/shm until a later scheduler dies of SIGBUS
// (sgl-project/sglang scripts/ci/utils/stale_shm_cleanup.py sweeps them the same way). After
// the steps are stopped, one task per such node removes the job user's files of those names,
// through find (no shell: the patterns are the adapter's, matched as paths). Only on the job's
// own nodes (node_sharing: exclusive): on a shared node another job of the user may still hold
// one, and its name's pid cannot tell (a container's pid namespace is not the host's).
#include <unistd.h>

#include <set>

#include "launch.hpp"
#include "srt/engines.hpp"
#include "srt/join.hpp"

namespace srt::launch {

StepCommand shm_sweep_command(const Job& job) {
  StepCommand c;
  if (job.profile.node_sharing != NodeSharing::exclusive) return c;
  std::set<std::string> nodes, globs;
  for (const auto& p : job.plan.processes)
    for (const auto& g : teardown_sweep(p)) {
      nodes.insert(p.node);
      globs.insert(g);
    }
  if (globs.empty()) return c;
  std::set<std::string> dirs;
  for (const auto& g : globs) dirs.insert(g.substr(0, g.rfind('/')));
  const std::string n = std::to_string(nodes.size());
  c.srun = {"srun", "--jobid=" + std::to_string(job.plan.job_id), "--overlap", "--nodes=" + n, "--ntasks=" + n,
            "--ntasks-per-node=1", "--nodelist=" + join(nodes, ","), "--job-name=shm_sweep", "--input=none"};
  c.command = {"find"};
  c.command.insert(c.command.end(), dirs.begin(), dirs.end());
  c.command.insert(c.command.end(), {"-maxdepth", "1", "-type", "f", "-user", std::to_string(::getuid()), "("});
  bool first = true;
  for (const auto& g : globs) {
    if (!first) c.command.push_back("-o");
    c.command.insert(c.command.end(), {"-path", g});
    first = false;
  }
  c.command.insert(c.command.end(), {")", "-print", "-delete"});
  return c;
}

}  // namespace srt::launch

// A fake SPANK API for the plugin glue test: the real implementation objects are linked against
// these definitions instead of Slurm's, so each test plays one Slurm process (srun/sbatch on the
// submit host, or one slurmstepd) with its context, items and job environment held in memory.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

namespace srt::fake {

struct Process {
  spank_context_t context = S_CTX_ERROR;
  std::map<std::string, std::string> job_env;      // spank_getenv/setenv/unsetenv (remote only)
  std::map<std::string, std::string> job_control;  // spank_job_control_setenv (local/allocator only)
  std::map<spank_item_t, std::uint32_t> items;     // S_JOB_ID, S_JOB_STEPID, S_JOB_NODEID; absent = not available
  std::vector<std::string> log;                    // slurm_error/info/debug lines, as formatted
  std::vector<std::string> calls;                  // every fake function called, in order
  std::optional<spank_err_t> setenv_fails_with;    // makes spank_setenv fail (Slurm refusing)
};

// The current process; reset() starts a new one (a new srun, a new slurmstepd).
Process& process();
void reset(spank_context_t context);
spank_t handle();

}  // namespace srt::fake

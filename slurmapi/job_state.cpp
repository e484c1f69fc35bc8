#include "job_state.hpp"

#include <cerrno>
#include <memory>
#include <mutex>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

namespace srt::slurmapi {

namespace {

std::string job_state_name(uint32_t base) {
  switch (base) {
    case JOB_PENDING: return "PENDING";
    case JOB_RUNNING: return "RUNNING";
    case JOB_SUSPENDED: return "SUSPENDED";
    case JOB_COMPLETE: return "COMPLETED";
    case JOB_CANCELLED: return "CANCELLED";
    case JOB_FAILED: return "FAILED";
    case JOB_TIMEOUT: return "TIMEOUT";
    case JOB_NODE_FAIL: return "NODE_FAIL";
    case JOB_PREEMPTED: return "PREEMPTED";
    case JOB_BOOT_FAIL: return "BOOT_FAIL";
    case JOB_DEADLINE: return "DEADLINE";
    case JOB_OOM: return "OUT_OF_MEMORY";
    default: return "STATE_" + std::to_string(base);
  }
}

std::string node_state_name(uint32_t state) {
  std::string s;
  switch (state & NODE_STATE_BASE) {
    case NODE_STATE_DOWN: s = "down"; break;
    case NODE_STATE_IDLE: s = "idle"; break;
    case NODE_STATE_ALLOCATED: s = "allocated"; break;
    case NODE_STATE_MIXED: s = "mixed"; break;
    case NODE_STATE_FUTURE: s = "future"; break;
    default: s = "unknown"; break;
  }
  if (state & NODE_STATE_FAIL) s = "fail";
  if (state & NODE_STATE_NO_RESPOND) s += "*";
  return s;
}

// slurm.h: slurm_init "MUST be called before any other Slurm library API calls". Slurm 22.05
// forgave a client that did not; 24.11 and 26.05 do not: slurm_load_job ends the process with
// "fatal: No hash plugins loaded. Was slurm_init() called before calling any Slurm API
// functions?" (seen on the lab in both root filesystems), which took the launcher down with no
// teardown. NULL: libslurm finds its configuration as every client does (SLURM_CONF, configless).
void init_libslurm() {
  static std::once_flag once;
  std::call_once(once, [] { slurm_init(nullptr); });
}

}  // namespace

std::optional<JobState> job_state(std::uint64_t job_id, std::string& error) {
  init_libslurm();
  job_info_msg_t* msg = nullptr;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
  // 26.05: jobs are asked by step id (slurm.h: slurm_load_job(resp, slurm_step_id_t, flags)).
  slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;
  id.job_id = static_cast<uint32_t>(job_id);
  const int rc = slurm_load_job(&msg, id, SHOW_ALL);
#else
  const int rc = slurm_load_job(&msg, static_cast<uint32_t>(job_id), SHOW_ALL);
#endif
  if (rc != SLURM_SUCCESS || !msg) {
    // errno, not slurm_get_errno(): 24.11 removed that function; libslurm sets errno itself.
    error = slurm_strerror(errno);
    return std::nullopt;
  }
  std::unique_ptr<job_info_msg_t, decltype(&slurm_free_job_info_msg)> owner(msg, slurm_free_job_info_msg);
  if (msg->record_count < 1) {
    error = "no such job";
    return std::nullopt;
  }
  const slurm_job_info_t& job = msg->job_array[0];
  JobState s;
  s.state = job_state_name(job.job_state & JOB_STATE_BASE);
  s.completing = (job.job_state & JOB_COMPLETING) != 0;
  s.node_failure = (job.job_state & JOB_STATE_BASE) == JOB_NODE_FAIL || job.state_reason == FAIL_DOWN_NODE;
  s.exclusive = job.shared == JOB_SHARED_NONE;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
  if (job.failed_node) s.failed_node = job.failed_node;
#endif
  return s;
}

std::vector<NodeHealth> node_health(const std::vector<std::string>& nodes) {
  init_libslurm();
  std::vector<NodeHealth> out;
  for (const auto& name : nodes) {
    node_info_msg_t* msg = nullptr;
    std::string copy = name;  // the API takes a char*
    if (slurm_load_node_single(&msg, copy.data(), SHOW_ALL) != SLURM_SUCCESS || !msg) continue;
    std::unique_ptr<node_info_msg_t, decltype(&slurm_free_node_info_msg)> owner(msg, slurm_free_node_info_msg);
    for (uint32_t i = 0; i < msg->record_count; ++i) {
      const node_info_t& n = msg->node_array[i];
      if (!n.name) continue;
      out.push_back({n.name, node_state_name(n.node_state), n.reason ? n.reason : "none"});
    }
  }
  return out;
}

}  // namespace srt::slurmapi

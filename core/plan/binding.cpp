#include <string>
#include <vector>

#include "adapters.hpp"
#include "srt/plan.hpp"

namespace srt {

// What a worker's node adds to its planned environment is its engine's business (adapters.hpp).
std::vector<std::string> apply_binding(Process& w, const WorkerBinding& b, const std::string& host_ip,
                                       const Profile& profile, std::uint64_t job_id) {
  return plan_detail::engine_adapter(w.adapter).bind(w, b, host_ip, profile, job_id);
}

}  // namespace srt

// Each process's ContainerSpec (srt/container_spec.hpp), in srtctl's mount order.
#include "srt/container_spec.hpp"

#include <string>
#include <utility>

#include "processes.hpp"
#include "srt/engines.hpp"
#include "srt/error.hpp"
#include "srt/plan.hpp"

namespace srt {

std::string job_directory(const Profile& profile, std::uint64_t job_id) {
  const std::string& base = profile.output_dir.empty() ? profile.results_root : profile.output_dir;
  return base + "/" + std::to_string(job_id);
}

Mount parse_mount(const std::string& spec) {
  Mount m;
  const auto a = spec.find(':');
  m.host = spec.substr(0, a);
  if (a == std::string::npos) {
    m.container = m.host;
    return m;
  }
  const auto b = spec.find(':', a + 1);
  m.container = spec.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  m.read_only = b != std::string::npos && spec.substr(b + 1).find("ro") != std::string::npos;
  return m;
}

namespace plan_detail {
namespace {

bool is_device_path(const std::string& path) { return path.rfind("/dev/", 0) == 0; }

// A later mount of the same container path replaces the earlier one in place (job-level
// mounts take priority over the profile's, as in srtctl). Whatever list names it, a host path
// under /dev/ is a device (srtctl's profiles mount /dev/kfd and /dev/dri as default_mounts):
// podman and docker need --device for it, a bind mount of the node is not enough.
void add(std::vector<Mount>& mounts, Mount m) {
  if (m.host.empty() || m.container.empty()) return;
  m.device = m.device || is_device_path(m.host);
  for (auto& have : mounts)
    if (have.container == m.container) {
      have = std::move(m);
      return;
    }
  mounts.push_back(std::move(m));
}

}  // namespace

bool runs_setup_script(const Process& proc) { return proc.is_worker() || proc.role == Role::router; }

std::string setup_script_path(const Recipe& r, const Profile& p, const Process& proc) {
  if (r.setup_script.empty() || !runs_setup_script(proc)) return {};
  if (p.setup_scripts_dir.empty())
    fail("setup_script " + r.setup_script + ": the cluster profile names no setup_scripts_dir to find it in",
         "ask the cluster's admin to set setup_scripts_dir (srtctl's configs/), or drop setup_script and put the "
         "setup in the image");
  const bool host = p.container_runtime == ContainerRuntime::none || proc.container.on_host;
  return (host ? p.setup_scripts_dir : std::string("/configs")) + "/" + r.setup_script;
}

std::string image_of(const Recipe& r, const Profile& p, Role role) {
  std::string image = r.model.container;
  // Schema 2's roles.<role>.container (srtctl v2.18 RoleConfig: "defaults to model.container").
  if (const auto own = r.per_role.container.find(to_string(role)); own != r.per_role.container.end()) image = own->second;
  if (role == Role::router && !r.frontend.container_image.empty()) image = r.frontend.container_image;
  if (role == Role::benchmark && !r.benchmark.container_image.empty()) image = r.benchmark.container_image;
  if (role == Role::gpu_exporter)
    if (const auto e = effective_gpu_exporter(r.telemetry, p.default_gpu_exporter)) image = e->container_image;
  auto alias = p.containers.find(image);
  return alias == p.containers.end() ? image : alias->second;
}

ContainerSpec container_spec(const Recipe& r, const Profile& p, const Process& proc, std::uint64_t job_id) {
  ContainerSpec c;
  if (proc.role == Role::kv_relay) {
    c.on_host = true;
    return c;
  }
  if (proc.role == Role::gpu_exporter) {
    const auto e = effective_gpu_exporter(r.telemetry, p.default_gpu_exporter);
    if (e && !e->binary.empty()) {  // a host executable: no container, as srtctl runs `binary`
      c.on_host = true;
      return c;
    }
  }
  c.image = image_of(r, p, proc.role);
  // A service's own image (services[].container: an image or a profile alias), else the job's.
  if (proc.role == Role::service && std::size_t(proc.index) < r.services.size())
    if (const std::string& own = r.services[std::size_t(proc.index)].container; !own.empty()) {
      const auto alias = p.containers.find(own);
      c.image = alias == p.containers.end() ? own : alias->second;
    }
  std::vector<Mount>& m = c.mounts;
  add(m, {job_directory(p, job_id) + "/logs", "/logs", false});
  // Its own directory only (where the recipes write, /results/$SLURM_JOB_ID): the whole root
  // would let a root container make the next job's directory (docs/security.md "Containers").
  const std::string own = std::to_string(job_id);
  add(m, {p.results_root + "/" + own, "/results/" + own, false});
  // The Plan passes a local model by its host path (model_argument), so it appears there.
  const std::string model = model_argument(r, p);
  if (!model.empty() && model.front() == '/') add(m, {model, model, true});
  for (const auto& [host, inside] : p.gpu_devices) add(m, {host, inside, false, true});
  // srtctl's profiles mount the whole results root at /results; the job's own directory above
  // takes its place.
  for (const auto& [host, inside] : p.default_mounts)
    if (!(host == p.results_root && inside == "/results")) add(m, {host, inside, false});
  for (const auto& spec : r.extra_mount) add(m, parse_mount(spec));
  for (const auto& [host, inside] : r.container_mounts) add(m, {host, inside, false});
  // srtctl mounts its configs/ at /configs; a setup script is looked up there.
  if (!r.setup_script.empty() && runs_setup_script(proc)) add(m, {p.setup_scripts_dir, "/configs", true});
  // Only a prefill or decode worker moves KV bytes; an aggregated one has no peer, whatever the
  // connector says (as srt-exec's --rdma check, jobstep/launch/steps.cpp).
  if (proc.is_worker() && proc.role != Role::agg && kv_over_rdma(r)) {
    // Device directories stay writable; the providers the host's NIC driver needs are read-only.
    for (const auto& [host, inside] : p.rdma_mounts) add(m, {host, inside, !is_device_path(host), is_device_path(host)});
    c.unlimited_memlock = true;
  }
  return c;
}

}  // namespace plan_detail
}  // namespace srt

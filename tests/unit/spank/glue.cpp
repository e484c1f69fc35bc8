#include "glue.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "impl/impl.hpp"
#include "srt/files.hpp"
#include "srt/profile_copy.hpp"
#include "srt/snapshot.hpp"

extern "C" {
const int srt_impl_abi = SRT_IMPL_ABI;
}

// Each library's entry is this, with one side's dispatcher: a submit side and a node are
// different processes, and every context dispatches to one side only.
int srt_impl_callback(const char* callback, spank_t sp, const srt_loader_state* state) {
  return srt::spank_impl::guarded_callback(callback, state, [sp](const std::string& cb, const srt_loader_state& s) {
    return spank_context() == S_CTX_REMOTE ? srt::spank_impl::node_dispatch(cb, sp, s)
                                           : srt::spank_impl::submit_dispatch(cb, sp, s);
  });
}

namespace srt::glue_test {

namespace fs = std::filesystem;

std::string write_lab_profile(const TempDir& dir, const std::string& extra, bool one_host) {
  std::ostringstream y;
  y << "cluster: lab\n"
       "gpus_per_node: 8\n"
       "visible_devices_env: ROCR_VISIBLE_DEVICES\n"
       "gpu_sbatch_directive: gres\n"
       "container_runtime: bwrap\n"
       "default_mounts:\n"
       "  " << dir.str() << ": /infmax-workspace\n"
       "port_range_begin: 20000\n"
       "port_range_end: 28999\n"
       "node_sharing: exclusive\n"
       "results_root: " << dir.str() << "/results\n"
       "frontend_port: 8000\n"
       "kv_events_capability: offset\n"
       "topology_cache_dir: " << dir.str() << "/cache\n"
       "engine_command: [/usr/bin/python3, -m, atom.entrypoints.openai_server]\n"
       "router_command: [/usr/bin/atomesh]\n"
       "default_health_check: {max_attempts: 120, interval_seconds: 1}\n"
       "node_addresses:\n";
  for (int n = 1; n <= 4; ++n) y << "  lab-n" << n << ": " << (one_host ? "127.0.0.1" : "10.77.0." + std::to_string(n)) << "\n";
  y << extra;
  const std::string path = dir.write("cluster.yaml", y.str());
  const Profile p = load_profile_file(path);
  write_profile_copy(dir.str() + "/cache", p.digest, p.source.root, SRT_VERSION);
  return path;
}

std::vector<std::string> lab_plugstack(const TempDir& dir, const std::string& profile_path) {
  return {"profile=" + profile_path, "cache_dir=" + dir.str() + "/cache"};
}

int call_impl(const char* callback, const LoaderArgs& args) {
  std::vector<char*> argv;
  for (const auto& w : args.plugstack) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  srt_loader_state state{SRT_IMPL_ABI, args.recipe, args.step, int(args.plugstack.size()), argv.data()};
  return srt_impl_callback(callback, fake::handle(), &state);
}

std::string snapshot_of(const std::string& recipe_path, const Json& recipe, const std::string& profile_path,
                        const std::string& package) {
  Snapshot s;
  s.recipe_path = recipe_path;
  s.recipe = recipe;
  s.recipe_text = recipe.dump();
  s.package = package;
  if (!profile_path.empty()) {
    const Profile p = load_profile_file(profile_path);
    s.profile_digest = p.digest;
    s.profile = p.source.root;
  }
  return encode_snapshot(s);
}

void become_stepd(const std::string& snapshot, int nodes, std::uint32_t step_id, std::uint32_t node_id) {
  fake::reset(S_CTX_REMOTE);
  auto& p = fake::process();
  p.items[S_JOB_ID] = 4242;
  p.items[S_JOB_STEPID] = step_id;
  p.items[S_JOB_NODEID] = node_id;
  p.items[S_JOB_NNODES] = std::uint32_t(nodes);
  p.job_env[SRT_SNAPSHOT_JOB_ENV] = snapshot;
  p.job_env["SLURM_JOB_NODELIST"] = "lab-n[1-" + std::to_string(nodes) + "]";
  p.job_env["SLURM_STEP_NODELIST"] = p.job_env["SLURM_JOB_NODELIST"];
}

std::string log_text() {
  std::string out;
  for (const auto& l : fake::process().log) out += l + "\n";
  return out;
}

}  // namespace srt::glue_test

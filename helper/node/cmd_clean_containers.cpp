// srt-helper clean-containers: remove every podman or docker container of a job on this node.
// Run twice on every path a job can end by (docs/design.md "Containers"): by the launcher's
// teardown, one task per node, and by the shipped Slurm Epilog (helper/srt-epilog.in,
// /usr/libexec/srt-epilog), which catches what a SIGKILLed launcher or srun left. A container
// survives its client: `run --rm` cleans up only when the client sees the container exit, and
// Slurm's KILL ends the client, not the container, which then holds its GPUs' memory until someone
// removes it.
// Containers are found by the labels srt-exec gives them (srt.job=JOB, srt.node=NODE), never by
// name alone.
// Exit 0: none of the job's left (or the runtime is not podman/docker, or not installed here);
// 1: some could not be removed; 2: usage; 3: the runtime could not list them. Only the node's own
// store counts: what is left in a job user's rootless store is logged, and never drains the node.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "job_user_store.hpp"
#include "srt/cli.hpp"
#include "srt/join.hpp"
#include "srt/process.hpp"

namespace srt::helper {
namespace {

constexpr double kListSeconds = 30, kRemoveSeconds = 120;

struct Found {
  std::vector<std::string> ids, names;
};

bool is_id(const std::string& s) {
  return s.size() >= 12 && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The job's containers, running or not; false when the runtime could not list them.
// `node` "" = whichever node started them (a name that is not certainly this node's).
bool list(const std::vector<std::string>& runtime, const std::string& job, const std::string& node, Found& found,
          std::string& why) {
  std::vector<std::string> argv = runtime;
  argv.insert(argv.end(), {"ps", "--all", "--filter", "label=srt.job=" + job});
  if (!node.empty()) argv.insert(argv.end(), {"--filter", "label=srt.node=" + node});
  argv.insert(argv.end(), {"--format", "{{.ID}} {{.Names}}"});
  int status = 0;
  const std::string out = sys::run_capture(argv, kListSeconds, &status, true);
  if (status != 0) {
    why = out.empty() ? "exit status " + std::to_string(status) : out;
    return false;
  }
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, name;
    fields >> id >> name;
    if (!is_id(id)) continue;  // a warning the runtime printed, not a container
    found.ids.push_back(id);
    found.names.push_back(name.empty() ? id : name);
  }
  return true;
}

// Removes the job's containers from one store (`runtime`: the argv before `ps`/`rm`, maybe run
// as the job's user; `shown`: the runtime's path in messages); `store` qualifies the messages.
// 0 none left, 1 some survive their removal, 3 the store could not be listed.
int clean_store(const std::vector<std::string>& runtime, const std::string& shown, const std::string& job,
                const std::string& node, const std::string& only, const std::string& store) {
  Found found;
  std::string why;
  if (!list(runtime, job, only, found, why)) {
    std::printf("clean-containers: node %s: %s cannot list the containers of job %s%s: %s\n", node.c_str(),
                shown.c_str(), job.c_str(), store.c_str(), why.c_str());
    return 3;
  }
  if (found.ids.empty()) {
    std::printf("clean-containers: node %s: no container of job %s%s\n", node.c_str(), job.c_str(), store.c_str());
    return 0;
  }
  // --force: the job has ended, or is ending; its containers get KILL, as its steps got.
  std::vector<std::string> rm = runtime;
  rm.insert(rm.end(), {"rm", "--force"});
  rm.insert(rm.end(), found.ids.begin(), found.ids.end());
  int status = 0;
  const std::string out = sys::run_capture(rm, kRemoveSeconds, &status, true);
  Found left;
  if (!list(runtime, job, only, left, why) || !left.ids.empty()) {
    std::printf("clean-containers: node %s: job %s: %s left after `%s rm --force` (%s): %s\n", node.c_str(),
                job.c_str(), left.ids.empty() ? "containers may be" : join(left.names, " ").c_str(),
                shown.c_str(), status == 0 ? "exit 0" : ("exit " + std::to_string(status)).c_str(),
                out.c_str());
    return 1;
  }
  std::printf("clean-containers: node %s: removed %zu container(s) of job %s%s: %s\n", node.c_str(), found.ids.size(),
              job.c_str(), store.c_str(), join(found.names, " ").c_str());
  return 0;
}

// A transient systemd scope's unit name for the job user's pass, "" where systemd is not the
// init system (sd_booted(3): /run/systemd/system) or systemd-run is not installed.
std::string transient_scope_unit(const std::string& job, long uid) {
  struct stat st {};
  if (::stat("/run/systemd/system", &st) != 0 || !S_ISDIR(st.st_mode)) return "";
  if (sys::find_program("systemd-run").empty() || sys::find_program("systemctl").empty()) return "";
  return "srt-epilog-" + job + "-" + std::to_string(uid) + "-" + std::to_string(::getpid());
}

}  // namespace

void add_clean_containers(CLI::App& app) {
  struct Args {
    std::string job, profile, runtime, node;
    std::vector<std::string> runtime_args;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "clean-containers", "remove this node's podman/docker containers of a job (launch's teardown, the epilog)");
  cmd->add_option("--job-id", a->job, "the job (default: $SLURM_JOB_ID)");
  cmd->add_option("--profile", a->profile, "cluster profile (default: $SRTSLURM_CONFIG, then the system one)");
  cmd->add_option("--runtime", a->runtime, "podman or docker, instead of the profile's container_runtime")
      ->check(CLI::IsMember({"podman", "docker"}));
  cmd->add_option("--runtime-arg", a->runtime_args, "an option before the subcommand (the profile's "
                                                    "container_runtime_args); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--node", a->node, "this node's name in messages (default: $SLURMD_NODENAME, then the host name)");
  cmd->callback([a] {
    if (a->job.empty())
      if (const char* env = std::getenv("SLURM_JOB_ID")) a->job = env;
    if (a->job.empty() || a->job.size() > 20 ||
        !std::all_of(a->job.begin(), a->job.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      std::fprintf(stderr, "srt-helper clean-containers: --job-id '%s' is not a job id (digits; or set SLURM_JOB_ID)\n",
                   a->job.c_str());
      exit_code = 2;
      return;
    }
    std::vector<std::string> runtime;
    if (!a->runtime.empty()) {
      runtime = {a->runtime};
      runtime.insert(runtime.end(), a->runtime_args.begin(), a->runtime_args.end());
    } else {
      Profile profile;
      if (!load_profile_or_usage_error(a->profile, profile)) return;
      const auto r = profile.container_runtime;
      if (!runs_per_step_containers(r)) {
        std::printf("clean-containers: profile container_runtime is %s: no container of ours to remove\n",
                    container_runtime_name(r));
        return;
      }
      runtime = {container_runtime_name(r)};
      runtime.insert(runtime.end(), profile.container_runtime_args.begin(), profile.container_runtime_args.end());
    }
    const NodeName here = this_node(a->node);
    const std::string& node = here.name;
    // On a node that knows its Slurm name, only the containers this node started (srt-exec
    // labels them srt.node): where nodes share a container store (the lab), not another's.
    const std::string only = here.known ? node : std::string();
    const std::string program = sys::find_program(runtime.front());
    if (program.empty()) {
      std::printf("clean-containers: node %s: %s is not installed here: no container of job %s can run here\n",
                  node.c_str(), runtime.front().c_str(), a->job.c_str());
      return;
    }
    // The program found is the one run (an Epilog has no PATH of its own to search again).
    runtime.front() = program;
    exit_code = clean_store(runtime, program, a->job, node, only, "");
    // Rootless podman: the job user's own store too (job_user_store.hpp), with the admin's
    // configuration, in a scope of its own that is killed afterwards where systemd runs (nothing
    // the user's podman leaves, conmon included, outlives the Epilog). What is left there is the
    // user's to remove and is logged: the node is not drained for it (the Epilog's exit stays
    // what the node's own store decided).
    if (const long uid = job_user_store_uid(); uid > 0 && program.size() >= 6 &&
                                               program.compare(program.size() - 6, 6, "podman") == 0) {
      std::string why;
      AdminContainersConf conf = admin_containers_conf();
      std::optional<EpilogStorageConf> written;
      if (conf.storage_conf.empty()) {
        const passwd* pw = ::getpwuid(uid_t(uid));
        written.emplace(pw && pw->pw_dir ? user_store(uid_t(uid), pw->pw_dir).driver : std::string());
        conf.storage_conf = written->path();
      }
      std::vector<std::string> as_user = as_job_user(runtime, uid_t(uid), conf, why);
      const std::string store = " in uid " + std::to_string(uid) + "'s store";
      const std::string scope = transient_scope_unit(a->job, uid);
      if (!scope.empty() && !as_user.empty())
        as_user.insert(as_user.begin(), {sys::find_program("systemd-run"), "--scope", "--quiet", "--collect",
                                         "--unit=" + scope, "--"});
      const int rc = as_user.empty() ? 3 : clean_store(as_user, program, a->job, node, only, store);
      if (!scope.empty()) {
        int ignored = 0;
        (void)sys::run_capture({sys::find_program("systemctl"), "kill", "--signal=SIGKILL", scope + ".scope"}, 10,
                               &ignored, true);
      }
      if (as_user.empty())
        std::printf("clean-containers: node %s: cannot ask the containers of job %s%s: %s\n", node.c_str(),
                    a->job.c_str(), store.c_str(), why.c_str());
      if (rc != 0)
        std::printf("clean-containers: node %s: job %s: what is left%s is the user's own to remove; the node stays "
                    "in service\n",
                    node.c_str(), a->job.c_str(), store.c_str());
    }
  });
}

}  // namespace srt::helper

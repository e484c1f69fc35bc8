// Rootless podman keeps each user's containers in that user's own store
// (~/.local/share/containers/storage, https://docs.podman.io/en/v4.3/markdown/podman.1.html
// "Rootless mode"): the root Epilog's `podman ps` never sees them. clean-containers, run as
// root, also asks the job's user's store, as that user, with a clean environment and the admin's
// configuration (docs/security.md "Container runtimes"); what survives there is logged, never a
// reason to drain the node.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace srt::helper {

// The files podman reads for the job user's store: the admin's containers.conf and storage.conf
// (/etc/containers, else /usr/share/containers), never the user's own, which name the runtime,
// conmon, hooks and mount program podman runs. Without an admin's containers.conf, none
// (/dev/null: podman's built-in defaults); without an admin's storage.conf, storage_conf is ""
// and the caller writes one (EpilogStorageConf): containers/storage refuses a file with no driver.
struct AdminContainersConf {
  std::string containers_conf = "/dev/null", storage_conf;
};
AdminContainersConf admin_containers_conf(const std::string& etc = "/etc/containers",
                                          const std::string& share = "/usr/share/containers");

// The user's store as podman finds it rootless with no configuration of the user's
// (podman(1) --root, --runroot): ~/.local/share/containers/storage, the driver its directory of
// layers shows ("" when none does), and the run directory $XDG_RUNTIME_DIR (/run/user/UID, else
// podman's own fallback /tmp/podman-run-UID; only one the user owns).
struct UserStore {
  std::string home, root, driver, runtime_dir;
};
UserStore user_store(uid_t uid, const std::string& home);

// A storage.conf naming only `driver` (overlay when ""), written by root in a fresh directory
// everyone can read and only root can change, removed on destruction.
class EpilogStorageConf {
 public:
  explicit EpilogStorageConf(const std::string& driver);
  ~EpilogStorageConf();
  EpilogStorageConf(const EpilogStorageConf&) = delete;
  EpilogStorageConf& operator=(const EpilogStorageConf&) = delete;
  const std::string& path() const { return file_; }  // "" when it could not be written

 private:
  std::string dir_, file_;
};

// `runtime` (absolute program first: podman) prefixed to run as `uid` with its primary group only
// (no supplementary groups: after the job, its render and video groups reach the next job's GPUs)
// and only HOME, USER, LOGNAME, PATH, XDG_RUNTIME_DIR where it exists, and CONTAINERS_CONF and
// CONTAINERS_STORAGE_CONF naming `conf`'s files (containers.conf(5): with CONTAINERS_CONF set,
// only that file is read); podman's --root is the user's store (~/.local/share/containers/storage,
// with the driver its directory shows) and --runroot its run directory, so nothing of the user's
// configuration is read to find them. Empty with `why` when the user or setpriv is not there.
std::vector<std::string> as_job_user(const std::vector<std::string>& runtime, uid_t uid, const AdminContainersConf& conf,
                                     std::string& why);

// The job's user as the Epilog gets it (SLURM_JOB_UID), when this process is root and the user is
// not: the one whose rootless store may hold the job's containers. -1 otherwise.
long job_user_store_uid();

}  // namespace srt::helper

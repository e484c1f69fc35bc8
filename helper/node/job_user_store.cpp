#include "job_user_store.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "srt/process.hpp"

namespace srt::helper {

namespace {

bool is_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

AdminContainersConf admin_containers_conf(const std::string& etc, const std::string& share) {
  AdminContainersConf c;
  for (const std::string& dir : {share, etc}) {  // /etc wins, as containers-config(5) orders them
    if (is_regular(dir + "/containers.conf")) c.containers_conf = dir + "/containers.conf";
    if (is_regular(dir + "/storage.conf")) c.storage_conf = dir + "/storage.conf";
  }
  return c;
}

UserStore user_store(uid_t uid, const std::string& home) {
  UserStore u;
  u.home = home;
  u.root = home + "/.local/share/containers/storage";
  for (const char* driver : {"overlay", "vfs", "btrfs"})
    if (is_directory(u.root + "/" + driver)) {
      u.driver = driver;
      break;
    }
  const std::string id = std::to_string(uid);
  for (const std::string& dir : {"/run/user/" + id, "/tmp/podman-run-" + id}) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid) {
      u.runtime_dir = dir;
      break;
    }
  }
  return u;
}

EpilogStorageConf::EpilogStorageConf(const std::string& driver) {
  char tmpl[] = "/tmp/srt-epilog-storage-XXXXXX";
  if (!::mkdtemp(tmpl)) return;
  dir_ = tmpl;
  if (::chmod(dir_.c_str(), 0755) != 0) return;
  const std::string file = dir_ + "/storage.conf";
  const std::string text = "[storage]\ndriver = \"" + (driver.empty() ? std::string("overlay") : driver) + "\"\n";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  ::close(fd);
  if (ok) file_ = file;
}

EpilogStorageConf::~EpilogStorageConf() {
  if (!file_.empty()) ::unlink(file_.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

std::vector<std::string> as_job_user(const std::vector<std::string>& runtime, uid_t uid, const AdminContainersConf& conf,
                                     std::string& why) {
  const passwd* pw = ::getpwuid(uid);
  if (!pw || !pw->pw_name || !pw->pw_dir) {
    why = "uid " + std::to_string(uid) + " has no passwd entry on this node";
    return {};
  }
  if (conf.storage_conf.empty()) {
    why = "no storage.conf to give podman";
    return {};
  }
  // setpriv (util-linux) changes uid, gid and groups and execs, nothing else: no PAM session,
  // no login shell, so nothing of the user's dotfiles runs as part of the Epilog.
  const std::string setpriv = sys::find_program("setpriv");
  if (setpriv.empty()) {
    why = "setpriv (util-linux) is not installed";
    return {};
  }
  const std::string id = std::to_string(uid);
  const UserStore store = user_store(uid, pw->pw_dir);
  std::vector<std::string> argv = {setpriv, "--reuid=" + id, "--regid=" + std::to_string(pw->pw_gid), "--clear-groups",
                                   "--", "/usr/bin/env", "-i", "HOME=" + store.home,
                                   std::string("USER=") + pw->pw_name, std::string("LOGNAME=") + pw->pw_name,
                                   "PATH=/usr/local/bin:/usr/bin:/bin", "CONTAINERS_CONF=" + conf.containers_conf,
                                   "CONTAINERS_STORAGE_CONF=" + conf.storage_conf};
  if (!store.runtime_dir.empty()) argv.push_back("XDG_RUNTIME_DIR=" + store.runtime_dir);
  argv.push_back(runtime.front());
  argv.insert(argv.end(), {"--root", store.root});
  if (!store.runtime_dir.empty()) argv.insert(argv.end(), {"--runroot", store.runtime_dir + "/containers"});
  // A store of another driver would be refused ("database graph driver mismatch").
  if (!store.driver.empty()) argv.insert(argv.end(), {"--storage-driver", store.driver});
  argv.insert(argv.end(), runtime.begin() + 1, runtime.end());
  return argv;
}

long job_user_store_uid() {
  if (::geteuid() != 0) return -1;
  const char* v = std::getenv("SLURM_JOB_UID");
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long uid = std::strtol(v, &end, 10);
  return *end == '\0' && uid > 0 ? uid : -1;
}

}  // namespace srt::helper

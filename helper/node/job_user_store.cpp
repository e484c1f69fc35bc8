#include "job_user_store.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "srt/process.hpp"

namespace srt::helper {

std::vector<std::string> as_job_user(const std::vector<std::string>& runtime, uid_t uid, std::string& why) {
  const passwd* pw = ::getpwuid(uid);
  if (!pw || !pw->pw_name || !pw->pw_dir) {
    why = "uid " + std::to_string(uid) + " has no passwd entry on this node";
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
  std::vector<std::string> argv = {setpriv, "--reuid=" + id, "--regid=" + std::to_string(pw->pw_gid), "--init-groups",
                                   "--", "/usr/bin/env", "-i", std::string("HOME=") + pw->pw_dir,
                                   std::string("USER=") + pw->pw_name, std::string("LOGNAME=") + pw->pw_name,
                                   "PATH=/usr/local/bin:/usr/bin:/bin"};
  const std::string run_dir = "/run/user/" + id;
  struct stat st {};
  if (::stat(run_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid)
    argv.push_back("XDG_RUNTIME_DIR=" + run_dir);
  argv.insert(argv.end(), runtime.begin(), runtime.end());
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

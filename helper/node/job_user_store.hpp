// Rootless podman keeps each user's containers in that user's own store
// (~/.local/share/containers/storage, https://docs.podman.io/en/v4.3/markdown/podman.1.html
// "Rootless mode"): the root Epilog's `podman ps` never sees them. clean-containers, run as
// root, also asks the job's user's store, as that user and with a clean environment.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace srt::helper {

// `runtime` (absolute program first) prefixed to run as `uid` (its primary group and its
// supplementary groups) with only HOME, USER, LOGNAME, PATH and, where it exists,
// XDG_RUNTIME_DIR; empty with `why` when the user or setpriv is not there.
std::vector<std::string> as_job_user(const std::vector<std::string>& runtime, uid_t uid, std::string& why);

// The job's user as the Epilog gets it (SLURM_JOB_UID), when this process is root and the user is
// not: the one whose rootless store may hold the job's containers. -1 otherwise.
long job_user_store_uid();

}  // namespace srt::helper

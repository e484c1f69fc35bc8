// srt-exec --container: the host side of a podman or docker step (jobstep/launch/container.cpp).
#pragma once
#include <string>
#include <vector>

namespace srt_exec {

// argv is `RUNTIME [global options] run [options] IMAGE COMMAND...`. Inserted after the first
// `run`: --name srt-<SLURM_JOB_ID>-<SLURM_STEP_ID>, --label srt.job=<SLURM_JOB_ID> (and
// srt.node=<SLURMD_NODENAME> when it is set), and --env NAME
// for every variable of this process's environment except the host's own (PATH, HOME, ...,
// unless named in `pass`). Returns the new argv, or throws std::runtime_error saying what is
// missing. Pure: environment given as "NAME=VALUE" strings.
// `user` ("UID:GID", or "" for the image's own user) becomes --user: profile container_user job.
std::vector<std::string> container_argv(const std::vector<std::string>& argv, const std::vector<std::string>& pass,
                                        const std::vector<std::string>& environment, const std::string& user = "");

}  // namespace srt_exec

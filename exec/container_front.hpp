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
// `rootless`: srt-exec runs as a user other than root, so podman runs rootless, in that user's
// own user namespace, where UID:GID would be one of the user's subordinate ids on the host (what
// the container writes under /results and /logs would belong to nobody the user knows); with
// --userns=keep-id podman maps the user to itself inside, as pyxis runs it.
std::vector<std::string> container_argv(const std::vector<std::string>& argv, const std::vector<std::string>& pass,
                                        const std::vector<std::string>& environment, const std::string& user = "",
                                        bool rootless = false);

}  // namespace srt_exec

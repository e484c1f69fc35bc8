// srt-exec --container (exec/container_front.cpp): what goes into `podman|docker run`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../../exec/container_front.hpp"

using Args = std::vector<std::string>;

namespace {

bool passes(const Args& out, const std::string& name) {
  for (std::size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i] == "--env" && out[i + 1] == name) return true;
  return false;
}

const Args kRun = {"podman", "--runtime", "runc", "run", "--rm", "--entrypoint", "", "img", "/srt-exec", "--", "run"};

}  // namespace

TEST_CASE("srt-exec --container names the container for the job and step, right after the first run") {
  const Args env = {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3", "PATH=/usr/bin", "ROCR_VISIBLE_DEVICES=0,1"};
  const Args out = srt_exec::container_argv(kRun, {}, env);
  const Args head(out.begin(), out.begin() + 8);
  CHECK(head == Args{"podman", "--runtime", "runc", "run", "--name", "srt-77-3", "--label", "srt.job=77"});
  // The image, its command and the command's own "run" stay as they were, at the end.
  CHECK(Args(out.end() - 7, out.end()) == Args(kRun.begin() + 4, kRun.end()));
  CHECK(passes(out, "ROCR_VISIBLE_DEVICES"));
  CHECK(passes(out, "SLURM_JOB_ID"));
  const Args on_node = srt_exec::container_argv(kRun, {}, {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3", "SLURMD_NODENAME=n7"});
  CHECK(Args(on_node.begin() + 8, on_node.begin() + 10) == Args{"--label", "srt.node=n7"});
  // container_user: job runs the container as the step's uid and gid, as pyxis does.
  const Args as_user = srt_exec::container_argv(kRun, {}, {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3"}, "1000:1000");
  CHECK(Args(as_user.begin() + 8, as_user.begin() + 10) == Args{"--user", "1000:1000"});
  CHECK(std::count(out.begin(), out.end(), std::string("--user")) == 0);
  // Rootless podman: the user maps to itself inside (--userns=keep-id), not to a subordinate id.
  const Args rootless = srt_exec::container_argv(kRun, {}, {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3"}, "1000:1000", true);
  CHECK(Args(rootless.begin() + 8, rootless.begin() + 11) == Args{"--userns=keep-id", "--user", "1000:1000"});
  // Only with container_user: job (the image's user is the user itself then), only for podman.
  const Args image_user = srt_exec::container_argv(kRun, {}, {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3"}, "", true);
  CHECK(std::count(image_user.begin(), image_user.end(), std::string("--userns=keep-id")) == 0);
  Args docker = kRun;
  docker.front() = "/usr/bin/docker";
  const Args on_docker = srt_exec::container_argv(docker, {}, {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3"}, "1000:1000", true);
  CHECK(std::count(on_docker.begin(), on_docker.end(), std::string("--userns=keep-id")) == 0);
}

TEST_CASE("srt-exec --container keeps the host's own variables out unless the Plan set them") {
  const Args env = {"SLURM_JOB_ID=77", "SLURM_STEP_ID=3", "PATH=/usr/bin", "HOME=/root", "LD_LIBRARY_PATH=/x",
                    "BASH_FUNC_f%%=() { :; }", "MC_TCP_BIND_ADDRESS=10.0.0.1", "A=b=c"};
  const Args out = srt_exec::container_argv(kRun, {"LD_LIBRARY_PATH"}, env);
  CHECK_FALSE(passes(out, "PATH"));
  CHECK_FALSE(passes(out, "HOME"));
  CHECK(passes(out, "LD_LIBRARY_PATH"));   // --pass: the recipe's env set it
  CHECK_FALSE(passes(out, "BASH_FUNC_f%%"));
  CHECK(passes(out, "MC_TCP_BIND_ADDRESS"));
  CHECK(passes(out, "A"));
  // Never a value on the command line: `ps` shows it to every user of the node.
  CHECK(std::none_of(out.begin(), out.end(), [](const std::string& a) { return a.find("10.0.0.1") != std::string::npos; }));
}

TEST_CASE("srt-exec --container refuses what it cannot name") {
  CHECK_THROWS_AS(srt_exec::container_argv(kRun, {}, {"SLURM_JOB_ID=77"}), std::runtime_error);
  CHECK_THROWS_AS(srt_exec::container_argv({"podman", "ps"}, {}, {"SLURM_JOB_ID=7", "SLURM_STEP_ID=1"}),
                  std::runtime_error);
  // SLURM_STEPID (older Slurm's spelling) is enough.
  const Args out = srt_exec::container_argv(kRun, {}, {"SLURM_JOB_ID=7", "SLURM_STEPID=2"});
  CHECK(out[5] == "srt-7-2");
}

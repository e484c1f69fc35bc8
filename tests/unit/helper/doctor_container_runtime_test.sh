#!/bin/bash
# srt-helper doctor's container-runtime and gpu-isolation checks with this host's real runtimes: a
# runtime that is not installed, GPU devices that are not on the node, podman's default limits
# above this host's hard limits (what runc refuses here), and a profile that gets it right.
# The podman cases skip, saying so, where podman is not installed.
#   doctor_container_runtime_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
fixture=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=doctor_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/doctor_lib.sh"
# check PROFILE_LINES STATUS PATTERN [ENV...]: doctor's container-runtime line on node n1 has
# STATUS and matches PATTERN (message, fix and details together).
check() { doctor_expect container-runtime details n1 "$@"; }

check "container_runtime: pyxis" ok "pyxis"
# A podman/docker container sees every GPU of its node (docs/security.md "Shared nodes"): said where nodes are
# shared; nothing to say for pyxis, whose containers stay in the step's cgroup.
isolation() { doctor_expect gpu-isolation fix n1 "$@"; }
isolation "container_runtime: docker
node_sharing: shared" warn "every GPU of the node .* other jobs' too.*node_sharing: exclusive"
isolation "container_runtime: podman" ok "exclusive nodes"
check "container_runtime: pyxis
node_sharing: shared" ok "pyxis"
if [[ $(doctor_line gpu-isolation "$tmp/out.json" message) != missing ]]; then
  echo "FAIL: pyxis on shared nodes has a gpu-isolation line: $(doctor_line gpu-isolation "$tmp/out.json" message)"
  failures=$((failures + 1))
fi
# A PATH without the runtime: not installed, said as such.
mkdir -p "$tmp/empty-bin"
check "container_runtime: docker" FAIL "docker is not installed on this node" PATH="$tmp/empty-bin"
if command -v podman >/dev/null; then
  hard_n=$(ulimit -Hn)
  devs="gpu_devices: {/dev/null: /dev/kfd}"
  check "container_runtime: podman
gpu_devices: {$tmp/no-such-kfd: /dev/kfd}" FAIL "GPU device $tmp/no-such-kfd \\(for /dev/kfd\\) is not on this node"
  if [[ $hard_n != unlimited ]] && (( hard_n < 1048576 )); then
    check "container_runtime: podman
$devs" FAIL "default nofile 1048576 is above this host's hard limit $hard_n"
  else
    echo "skipped: this host's nofile hard limit ($hard_n) admits podman's default"
  fi
  check "container_runtime: podman
$devs
container_run_args: [--ulimit, 'nofile=$hard_n:$hard_n', --ulimit, 'nproc=1024:1024']" ok "^ok podman [0-9.]+ .*ulimit nofile: $hard_n:$hard_n"
else
  echo "skipped: podman is not installed (scripts/install-deps.sh installs it)"
fi
exit $((failures > 0))

#!/bin/bash
# srt-helper doctor on who is root (docs/security.md "Container runtimes"): a rootful docker
# daemon FAILs unless the profile trusts the job users as root (docker_users_are_root), a rootless
# one passes and says so; the plugstack line passes with every argument the plugin accepts.
# docker is a stand-in script answering as a rootful or rootless daemon.
#   doctor_security_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
fixture=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=doctor_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/doctor_lib.sh"

mkdir -p "$tmp/bin"
cat >"$tmp/bin/docker" <<'SH'
#!/bin/sh
case "$*" in
  *version*) echo 27.3.1 ;;
  *info*) if [ -n "$FAKE_ROOTLESS" ]; then echo "runc [name=seccomp,profile=builtin name=rootless]"; else echo "runc [name=seccomp,profile=builtin]"; fi ;;
esac
SH
chmod +x "$tmp/bin/docker"
devs="gpu_devices: {/dev/null: /dev/kfd}"
check() { doctor_expect container-runtime details n1 "$@"; }
check "container_runtime: docker
$devs" FAIL "rootful daemon makes every job user root.*docker_users_are_root: true" PATH="$tmp/bin:/usr/bin:/bin"
check "container_runtime: docker
$devs" ok "mode: rootless" PATH="$tmp/bin:/usr/bin:/bin" FAKE_ROOTLESS=1
check "container_runtime: docker
docker_users_are_root: true
$devs" ok "mode: rootful daemon; the profile trusts job users as root" PATH="$tmp/bin:/usr/bin:/bin"

# L8: topology= and timing are the plugin's own arguments.
printf 'cluster: test\n' >"$tmp/cluster.yaml"
printf 'required /usr/lib64/slurm/spank_srt.so profile=%s topology=/x.xml timing\n' "$tmp/cluster.yaml" >"$tmp/plugstack.conf"
"$helper" doctor --json --node n1 --profile "$tmp/cluster.yaml" --xml "$fixture" --plugstack "$tmp/plugstack.conf" \
  >"$tmp/out.json" 2>"$tmp/err"
got=$(doctor_line plugstack "$tmp/out.json" fix)
if [[ $got == "ok "* ]]; then echo "as expected: $got"; else echo "FAIL: plugstack with topology= and timing: $got"; failures=$((failures + 1)); fi

((failures == 0)) || { echo "$failures failure(s)"; exit 1; }
echo "all doctor security checks as expected"

#!/usr/bin/env bash
# srt-helper gpu-check, the clean-GPU check the launcher runs on every node before the first
# worker, with the real ROCm SMI library on a fake /sys (bound over /sys in a
# private mount namespace, as rsmi_namespace does): another user's process on a GPU of the job is
# named with node, GPU, PID and memory (exit 1) and left alone; one of this user's outside any
# Slurm job is named too, never ended; a GPU that is not the job's is not judged; memory no
# process holds beyond --idle-vram-mib is named; a node without ROCm GPUs is "not checked" (0);
# a word that is not NODE:INDICES is a usage error (2). Ending an earlier job's leftover needs
# slurmctld to say that job has ended: cluster.launch.gpu-busy.
# Usage: gpu_check_test.sh SRT_HELPER SOURCE_DIR   (root: exit 77 otherwise)
set -euo pipefail
helper=${1:?usage: gpu_check_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: gpu_check_test.sh SRT_HELPER SOURCE_DIR}
(( EUID == 0 )) || { echo "SKIP: needs root for a private mount namespace over /sys"; exit 77; }
work=$(mktemp -d)
holders=()
# The holders are not this shell's children (started in $(...)): wait until each is gone, or
# its own clean-up on TERM races the rm below.
cleanup() {
  local h _
  for h in "${holders[@]}"; do kill "$h" 2>/dev/null || true; done
  for h in "${holders[@]}"; do
    for _ in $(seq 50); do kill -0 "$h" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [[ -f "$work/out" ]] && cat "$work/out" >&2; exit 1; }

fake="$work/sys"
/usr/bin/python3 "$src/tests/fixtures/rsmi/make-fake-sysfs.py" --vram-used 6:5000 "$fake"
hold() {  # hold GPU MIB [--uid N]: a live holder; prints its PID
  /usr/bin/python3 "$src/tests/cluster/gpu_holder.py" "$fake" "$@" > /dev/null &
  local pid=$!
  for _ in $(seq 100); do [[ -d "$fake/class/kfd/kfd/proc/$pid" ]] && break; sleep 0.1; done
  [[ -d "$fake/class/kfd/kfd/proc/$pid" ]] || fail "holder $pid did not register"
  echo "$pid"
}
other=$(hold 3 163840 --uid 65534); holders+=("$other")
mine=$(unset SLURM_JOB_ID; hold 1 2048); holders+=("$mine")
# shellcheck disable=SC2016  # $0 and $@ are the inner shell's
in_fake() { unshare -m bash -c 'mount --make-rprivate / && mount --bind "$0" /sys && exec "$@"' "$fake" "$@"; }

# The library must read the fake tree at all: Debian 12's 5.2 and trixie's 6.1 do, sid's 6.4 does
# not initialise on it (as rsmi_namespace, which scripts/test.sh leaves out of the matrix).
in_fake "$helper" gpu-check --node n1 n1:0 > "$work/out" 2>&1 || true
if grep -q "not checked: ROCm SMI did not initialise" "$work/out"; then
  echo "SKIP: this ROCm SMI library does not initialise on the fake sysfs: $(cat "$work/out")"
  exit 77
fi

rc=0
in_fake env -u SLURM_JOB_ID -u SLURM_STEP_GPUS -u SLURM_JOB_GPUS "$helper" gpu-check --node n1 --job-id 77 \
  n1:0-5 n2:0-7 > "$work/out" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "busy GPUs: exit $rc, expected 1"
grep -qx "gpu-check: node n1: busy: n1: GPU 3 (0000:75:00.0) is held by PID $other (python3, uid 65534) (the GPU has 160.3 GiB of VRAM in use): not this job's user's process, and srt ends only its own user's leftovers; ask the node's admin, or resubmit with --exclude=n1" "$work/out" \
  || fail "another user's holder is not named as expected"
grep -q "gpu-check: node n1: busy: n1: GPU 1 (0000:15:00.0) is held by PID $mine (python3) (the GPU has 2.3 GiB of VRAM in use): your own process outside any Slurm job" "$work/out" \
  || fail "this user's holder outside a job is not named as expected"
grep -q "GPU 6" "$work/out" && fail "GPU 6 is not the job's (n1:0-5) and was judged"
{ kill -0 "$other" && kill -0 "$mine"; } || fail "gpu-check ended a process that was not its to end"

rc=0
in_fake "$helper" gpu-check --node n1 --job-id 77 --idle-vram-mib 4096 n1:6 > "$work/out" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "orphaned VRAM: exit $rc, expected 1"
grep -q "n1: GPU 6 (0000:e5:00.0) has 5.2 GiB of 288.0 GiB of VRAM in use and no process on this node holds it (a clean GPU holds at most 4.0 GiB" "$work/out" \
  || fail "memory no process holds is not named"

rc=0
in_fake "$helper" gpu-check --node n1 --job-id 77 n1:0,2,4 > "$work/out" 2>&1 || rc=$?
[[ $rc == 0 && "$(cat "$work/out")" == "gpu-check: node n1: clean: 3 GPU(s), no process holds them, VRAM within 1024 MiB each" ]] \
  || fail "free GPUs: exit $rc"
in_fake "$helper" gpu-check --node n3 n1:0 > "$work/out" 2>&1 || fail "a node with no worker GPU: exit $?"
grep -qx "gpu-check: node n3: clean: no worker of the job has a GPU here" "$work/out" || fail "no worker GPU here"

# No ROCm GPU at all (this machine's own /sys has no KFD): not checked, not a failure.
if [[ ! -e /sys/class/kfd ]]; then
  "$helper" gpu-check --node n1 n1:0-7 > "$work/out" 2>&1 || fail "no ROCm GPU here: exit $?"
  grep -q "gpu-check: node n1: not checked: ROCm SMI did not initialise" "$work/out" || fail "no 'not checked' line"
fi
# --pyxis-clean: the user's own named containers of other images go (a fake enroot on PATH
# answers `enroot list -f` as enroot does and logs every remove); the job's own, one with a
# process in it, and names that are not ours stay.
mkdir -p "$work/bin"
cat > "$work/bin/enroot" <<'SH'
#!/bin/sh
case "$1" in
  list) printf 'NAME                    PID    STATE\npyxis_srt-0123456789ab\npyxis_srt-aaaaaaaaaaaa  81234  S\npyxis_srt-bbbbbbbbbbbb\npyxis_mine\n' ;;
  remove) echo "$*" >> "$ENROOT_LOG" ;;
  *) exit 2 ;;
esac
SH
chmod 755 "$work/bin/enroot"
ENROOT_LOG="$work/enroot.log" PATH="$work/bin:$PATH" "$helper" gpu-check --node n3 --pyxis-clean \
  --pyxis-keep srt-bbbbbbbbbbbb n1:0 > "$work/out" 2>&1 || fail "--pyxis-clean: exit $?"
[[ "$(cat "$work/enroot.log")" == "remove -f pyxis_srt-0123456789ab" ]] || fail "enroot remove calls: $(cat "$work/enroot.log")"
grep -qx "gpu-check: node n3: removed: pyxis container pyxis_srt-0123456789ab of another image" "$work/out" || fail "no 'removed' line"
grep -qx "gpu-check: node n3: kept: pyxis container pyxis_srt-aaaaaaaaaaaa of another image: a process runs in it" "$work/out" ||
  fail "no 'kept' line for the container in use"
PATH="$work/bin-none:/usr/bin:/bin" "$helper" gpu-check --node n3 --pyxis-clean n1:0 > "$work/out" 2>&1 || fail "no enroot: exit $?"
grep -q "gpu-check: node n3: note: \`enroot list -f\` is not on PATH" "$work/out" || fail "no note without enroot"

rc=0
"$helper" gpu-check --node n1 n1:x-y > "$work/out" 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "a bad NODE:INDICES word: exit $rc, expected 2"
grep -q "'n1:x-y' is not NODE:INDICES" "$work/out" || fail "the usage error does not name the word"
echo "PASS: gpu-check names other holders and orphaned memory, ends nothing that is not its own, skips GPUs without ROCm"

#!/usr/bin/env bash
# test-launch-gpu-busy.sh BASE: GPUs left busy before a job starts, with the
# real ROCm SMI library reading a fake /sys on node2 (fake-gpu-sysfs.sh: node2's mount
# namespace only) in which a live process holds GPU 3 (gpu_holder.py, as the driver lists it).
#  1. The holder is another user's: the job stops before any worker starts, naming node2, the
#     GPU, the PID and the memory, failure class node (failure_nodes node2); the holder lives on.
#  2. The holder is the job user's own, left by an earlier job that has ended (its environment
#     says SLURM_JOB_ID of job 1): the launcher ends it (TERM: the holder frees its memory as
#     the driver would), says so on the job's output, and goes on past the check; this job then
#     stops at its 3-second health deadline (workers that load for 600 s), a job of its own.
#  3. `srt-helper run --retry 1` with another user's holder on node2 again: the first job fails
#     with class node naming node2, run submits it again with --exclude=node2, and the second
#     job completes the 1P1D twin's sweep on node1 and node3 (item 5 on the lab).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
skip() { echo "SKIP: $*" >&2; exit 77; }
[[ "$LAB_MODE" == netns ]] || skip "needs the netns lab (a mount namespace per node)"
/usr/bin/python3 -c 'import ctypes.util, sys; sys.exit(0 if ctypes.util.find_library("rocm_smi64") else 1)' ||
  skip "no ROCm SMI library (librocm-smi64-1) on this machine"
# wait_for SECONDS CMD...: until CMD succeeds (polled every 0.1 s); non-zero on timeout.
wait_for() {
  local end=$(( $(date +%s) + $1 ))
  shift
  until "$@"; do (( $(date +%s) < end )) || return 1; sleep 0.1; done
}
work=$(lab_scratch launch-gpu-busy)
node=node2
slurmd_pid=$(cat "$LAB_BASE/run/slurmd-$node.pid")
lab_alive "$slurmd_pid" || lab_fail "slurmd of $node is not running"
in_node() { nsenter -t "$slurmd_pid" -m "$@"; }
fake="$work/sys"
/usr/bin/python3 "$LAUNCH_SRC/tests/fixtures/rsmi/make-fake-sysfs.py" --devices-dir srt-fake-devices "$fake"
holder=
mounted=0
run_pid=
finish() {
  launch_cancel_job
  [[ -n "$run_pid" ]] && kill "$run_pid" 2>/dev/null
  [[ -n "$holder" ]] && kill "$holder" 2>/dev/null
  (( mounted )) && in_node "$HERE/fake-gpu-sysfs.sh" umount
  true
}
trap finish EXIT
in_node "$HERE/fake-gpu-sysfs.sh" mount "$fake"
mounted=1
[[ -e /sys/srt-fake-devices ]] && lab_fail "the fake GPUs leaked out of $node's namespace"

recipe="$work/unhealthy.yaml"
sed -e 's/^  max_attempts: 60 .*/  max_attempts: 3/' "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" > "$recipe"
grep -q '^  max_attempts: 3$' "$recipe" || lab_fail "could not shorten the health budget"

# 1. another user's process on GPU 3 (bus 75)
/usr/bin/python3 "$HERE/gpu_holder.py" "$fake" 3 163840 --uid 65534 > "$work/holder1.out" &
holder=$!
wait_for 10 test -d "$fake/class/kfd/kfd/proc/$holder" || lab_fail "the holder did not register"
jid=$(launch_submit "$recipe")
echo "job $jid: GPU 3 of $node held by PID $holder (uid 65534)"
launch_expect_failed "$jid" 60 "gpus: $node: GPU 3 (0000:75:00.0) is held by PID $holder (python3, uid 65534)" \
  "160.3 GiB" "--exclude=$node" "no worker was started"
launch_expect_class "$jid" node "$node"
logs="$(launch_job_dir "$jid")/logs"
compgen -G "$logs/*_prefill_w*.out" >/dev/null && lab_fail "a worker was started: $(ls "$logs")"
lab_alive "$holder" || lab_fail "another user's process was ended"
launch_assert_clean "$jid" 15
first=$jid
kill "$holder"; wait "$holder" 2>/dev/null || true
holder=
rm -rf "${fake:?}/class/kfd/kfd/proc/"*  # its owner could not unregister it; the driver would
gpu3=$(echo "$fake"/srt-fake-devices/pci0000:70/*/*/*/*/*/0000:75:00.0)
used=$(cat "$gpu3/mem_info_vram_used")
echo $(( 300 << 20 )) > "$gpu3/mem_info_vram_used"
echo "case 1 done (GPU 3 had $used bytes in use)"

# 2. the job user's own leftover from job $first, which has ended
SLURM_JOB_ID=$first /usr/bin/python3 "$HERE/gpu_holder.py" "$fake" 3 163840 > "$work/holder2.out" &
holder=$!
wait_for 10 test -d "$fake/class/kfd/kfd/proc/$holder" || lab_fail "the holder did not register"
jid=$(SRT_STANDIN_LOAD_SECONDS=600 launch_submit "$recipe")
echo "job $jid: GPU 3 of $node held by PID $holder, left by job $first"
launch_expect_failed "$jid" 90 "workers not healthy after 3 s"
launch_expect_class "$jid" engine
out="$LAB_BASE/work/launch-$jid.out"
grep -q "gpu-check: node $node: ending: $node: PID $holder (python3) of your earlier job $first, which holds GPU 3 (0000:75:00.0)" "$out" ||
  { launch_show "$jid"; lab_fail "the job's output does not say it ended PID $holder"; }
grep -q "gpu-check: node $node: clean: 8 GPU(s)" "$out" || { launch_show "$jid"; lab_fail "no clean verdict after ending it"; }
lab_wait_gone 10 "$holder" || lab_fail "PID $holder still runs"
wait "$holder" 2>/dev/null || true
holder=
[[ ! -e "$fake/class/kfd/kfd/proc" || -z "$(ls "$fake/class/kfd/kfd/proc")" ]] || lab_fail "the holder did not unregister"
launch_assert_clean "$jid" 15

# 3. run --retry 1 around another user's holder
holder=$(/usr/bin/python3 "$HERE/gpu_holder.py" "$fake" 3 163840 --uid 65534 > "$work/holder3.out" & echo $!)
wait_for 10 test -d "$fake/class/kfd/kfd/proc/$holder" || lab_fail "the holder did not register"
out="$work/run.out"
PATH="$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$LAB_BASE/etc/srt/cluster.yaml" \
  "$SRT_HELPER" run --profile "$LAB_BASE/etc/srt/cluster.yaml" --results "$work/collected" --no-pictures \
  --timeout 240 --retry 1 "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" > "$out" 2>&1 &
run_pid=$!
rc=0
wait "$run_pid" || rc=$?
run_pid=
mapfile -t jobs < <(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$out")
echo "srt-helper run --retry 1 exited $rc; jobs: ${jobs[*]}"
show_run() { echo "--- srt-helper run output"; cat "$out"; }
[[ $rc == 0 && ${#jobs[@]} == 2 ]] || { show_run; lab_fail "expected two jobs and exit 0"; }
jid=${jobs[1]}
grep -q "^retry 1 of 1: a node failed ($node); submitting again with --exclude=$node$" "$out" ||
  { show_run; lab_fail "run did not say it resubmits without $node"; }
launch_expect_class "${jobs[0]}" node "$node"
[[ "$(launch_status "$jid" state)" == completed ]] || { show_run; launch_show "$jid"; lab_fail "the retried job did not complete"; }
ran_on=$(for f in "$(launch_job_dir "$jid")"/logs/*_prefill_w*.out "$(launch_job_dir "$jid")"/logs/*_decode_w*.out; do
  [[ -e "$f" ]] || continue
  f=${f##*/}
  echo "${f%%_*}"
done | sort -u | tr '\n' ' ')
echo "the retried job's workers ran on: $ran_on"
[[ "$ran_on" == "node1 node3 " ]] || { show_run; lab_fail "the retried job's workers ran on '$ran_on', expected node1 and node3"; }
lab_alive "$holder" || lab_fail "another user's process was ended"
launch_assert_clean "${jobs[0]}" 15
launch_assert_clean "$jid" 15
echo "PASS: another user's GPU holder stopped the job before any worker, naming $node, GPU 3, PID and memory; the user's own leftover was ended and the job went on; run --retry placed the job again without $node"

#!/usr/bin/env bash
# test-fault-setsid-escape.sh BASE: every ATOM worker starts a helper that escapes its step
# (setsid() and a double fork: SRT_STANDIN_ESCAPE_SECONDS, tests/standins/escape.py). The
# helpers are still ended when the job ends, by the mechanism shown here, not by luck:
#  - control: the same helper started by a plain srun step (no container runtime) outlives its
#    job: the lab's proctrack/linuxproc follows parent links only and loses it (the test then
#    ends it by PID). So the helper really escapes what Slurm tracks in the lab;
#  - srt job (bwrap runtime): each helper is seen running, in a session of its own, re-parented
#    away from the server, inside the step's own PID namespace; when the job ends every one of
#    those PIDs is gone, and nothing with the job's SLURM_JOB_ID is left on any node.
# (Real clusters: proctrack/cgroup holds every process of a step whatever its session; pyxis
# containers share the host's PID namespace.)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
work=$(lab_scratch fault-setsid-escape)
leaked=()
cleanup() {
  launch_cancel_job
  local pid
  for pid in "${leaked[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  true
}
trap cleanup EXIT

# escapees JOBID: PIDs (host numbering) of the escaped helpers of the job, on any node.
escapees() {
  local pid
  for pid in $(lab_job_pids "$1"); do
    grep -qszxF SRT_STANDIN_ESCAPEE=1 "/proc/$pid/environ" && echo "$pid"
  done
  return 0
}
field() { local s; s=$(cat "/proc/$1/stat"); s=${s##*) }; awk -v n="$2" '{ print $n }' <<<"$s"; }
ppid_of() { field "$1" 2; }
sid_of() { field "$1" 4; }
node_of() { local ns; ns=$(ip netns identify "$1" 2>/dev/null); echo "${ns#"$LAB_NETNS_PREFIX"-}"; }
# ancestry PID: "pid(comm) <- ..." up to PID 1.
ancestry() {
  local pid=$1 out=
  while [[ "$pid" =~ ^[0-9]+$ ]] && (( pid > 1 )); do
    out+="$pid($(cat "/proc/$pid/comm" 2>/dev/null)) <- "
    pid=$(ppid_of "$pid" 2>/dev/null) || break
  done
  echo "${out}1"
}
# wait_escapees JOBID COUNT: wait (bounded) until COUNT helpers of the job run; prints them.
wait_escapees() {
  local found=
  for _ in $(seq 1 300); do
    found=$(escapees "$1")
    (( $(wc -w <<<"$found") >= $2 )) && { echo "$found"; return 0; }
    sleep 0.1
  done
  echo "$found"
  return 1
}

# --- control: a plain step, no PID namespace ------------------------------------------------
cjid=$(sbatch --parsable -N1 -w node3 -o "$work/control-%j.out" \
  --wrap "srun env SRT_STANDIN_ESCAPE_SECONDS=120 /usr/bin/python3 -c 'import logging, sys; sys.path.insert(0, \"$LAUNCH_SRC/tests/standins\"); import escape; escape.start_escapee(logging.getLogger(\"control\"))'")
jid=$cjid
result=$(lab_wait_job "$cjid" 60) || { cat "$work/control-$cjid.out"; lab_fail "control job: $result"; }
jid=
sleep 1  # what Slurm would still reap, it has reaped by now (KillWait is longer, but the job is over)
mapfile -t leaked < <(escapees "$cjid")
(( ${#leaked[@]} > 0 )) || { cat "$work/control-$cjid.out"; lab_fail "control: no helper outlived its plain job; the test would prove nothing"; }
for pid in "${leaked[@]}"; do
  echo "control: job $cjid ended ($result), its helper $pid on $(node_of "$pid") still runs: $(ancestry "$pid")"
done
kill -KILL "${leaked[@]}"
lab_wait_gone 5 "${leaked[@]}" || lab_fail "could not end the control's helper ${leaked[*]}"
leaked=()
echo "ok: proctrack/linuxproc alone loses a setsid + double-fork helper (ended by the test)"

# --- the srt job: bwrap steps, each in its own PID namespace ---------------------------------
jid=$(SRT_STANDIN_ESCAPE_SECONDS=600 SRT_STANDIN_TOKEN_MS=20 \
  launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml")
echo "job $jid: each worker starts a helper that escapes (600 s)"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "never reached the benchmark"; }
helpers=$(wait_escapees "$jid" 2) || { launch_show "$jid"; lab_fail "expected 2 helpers (prefill, decode), found: $helpers"; }
host_pidns=$(readlink /proc/self/ns/pid)
for pid in $helpers; do
  step=$(tr '\0' '\n' < "/proc/$pid/environ" | sed -n 's/^SRT_STEP=//p')
  server=$(ppid_of "$pid")
  chain=$(ancestry "$pid")
  echo "helper $pid of $step on $(node_of "$pid"): session $(sid_of "$pid"), $chain"
  [[ "$(readlink "/proc/$pid/ns/pid")" != "$host_pidns" ]] || lab_fail "helper $pid is in the host's PID namespace"
  [[ "$(cat "/proc/$server/comm")" != python3 ]] || lab_fail "helper $pid was not re-parented away from the server"
  [[ "$chain" == *"(slurmstepd)"* ]] || lab_fail "helper $pid is not under a slurmstepd"
  # Its session is not the server's (the server's is the one its step started).
  for other in $(lab_job_pids "$jid"); do
    [[ "$(cat "/proc/$other/comm" 2>/dev/null)" == python3 ]] || continue
    grep -qszxF "SRT_STEP=$step" "/proc/$other/environ" || continue
    [[ "$(sid_of "$other")" != "$(sid_of "$pid")" ]] || lab_fail "helper $pid shares the session of $other"
  done
done
result=$(lab_wait_job "$jid" 300) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result; status.json: $(launch_status "$jid" state): $(launch_status "$jid" reason)"
read -ra helper_pids <<<"$(tr '\n' ' ' <<<"$helpers")"
lab_wait_gone 10 "${helper_pids[@]}" || lab_fail "helpers still running after the job ended: $helpers"
echo "ok: the helpers $(tr '\n' ' ' <<<"$helpers")are gone"
lab_assert_job_clean "$jid" 10
jid=
echo "PASS: helpers that escape with setsid() end with the job (the step's PID namespace), not by luck"

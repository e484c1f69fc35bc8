#!/usr/bin/env bash
# test-launch-killed.sh BASE: a worker killed while it starts (SIGKILL to the decode server,
# still loading) ends the job within seconds, with the worker's name and its last log lines on
# the job's output, status.json "failed", and nothing left on any node.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
lab_test_init "${1:-}"
jid=
# Whatever happens, the test leaves no job behind.
trap '[[ -n "$jid" ]] && scancel "$jid" 2>/dev/null; true' EXIT

# server_pid JOBID: the decode:0 ATOM server (the python3 whose parent is not a python3 of it).
server_pid() {
  local pid parent
  for pid in $(launch_job_pids "$1"); do
    grep -qszxF 'SRT_STEP=decode:0' "/proc/$pid/environ" || continue
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == python3 ]] || continue
    parent=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null) || continue
    [[ "$(cat "/proc/$parent/comm" 2>/dev/null)" == python3 ]] && continue
    echo "$pid"
    return 0
  done
  return 1
}

jid=$(SRT_STANDIN_LOAD_SECONDS=600 launch_submit "$LAUNCH_SRC/recipes/lab/disagg-1p1d-tp8-lab.yaml")
echo "job $jid: workers load for 600 s"
pid=
for _ in $(seq 1 300); do
  pid=$(server_pid "$jid") && break
  sleep 0.1
done
[[ -n "$pid" ]] || { launch_show "$jid"; scancel "$jid"; lab_fail "decode:0 never started"; }
sleep 1
kill -KILL "$pid"
t0=$(lab_now)
echo "killed decode:0 (pid $pid)"
result=$(lab_wait_job "$jid" 60) && { launch_show "$jid"; lab_fail "job $jid completed"; }
elapsed=$(lab_elapsed "$t0")
echo "$result $elapsed s after the kill"
awk -v e="$elapsed" 'BEGIN { exit !(e < 10) }' || { launch_show "$jid"; lab_fail "took $elapsed s (limit 10 s)"; }
reason=$(launch_status "$jid" reason)
echo "status.json: $(launch_status "$jid" state): $reason"
[[ "$(launch_status "$jid" state)" == failed && "$reason" == *"decode:0"* ]] || { launch_show "$jid"; lab_fail "wrong status"; }
grep -q 'last lines of .*_decode_w0.out' "$LAB_BASE/work/launch-$jid.out" || { launch_show "$jid"; lab_fail "no log tail on the output"; }
launch_assert_clean "$jid" 10
echo "PASS: the job ended $elapsed s after the worker died"

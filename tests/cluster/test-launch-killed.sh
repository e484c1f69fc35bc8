#!/usr/bin/env bash
# test-launch-killed.sh BASE: a worker killed while it starts (SIGKILL to the decode server,
# still loading) ends the job within seconds, with the worker's name and its last log lines on
# the job's output, status.json "failed", and nothing left on any node.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"

jid=$(SRT_STANDIN_LOAD_SECONDS=600 launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml")
echo "job $jid: workers load for 600 s"
pid=
for _ in $(seq 1 300); do
  pid=$(launch_step_pid "$jid" decode_0) && break
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
launch_expect_class "$jid" engine
grep -q 'last lines of .*_decode_w0.out' "$LAB_BASE/work/launch-$jid.out" || { launch_show "$jid"; lab_fail "no log tail on the output"; }
launch_assert_clean "$jid" 10
echo "PASS: the job ended $elapsed s after the worker died"

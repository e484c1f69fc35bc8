#!/usr/bin/env bash
# test-launch-shared-ports.sh BASE: nodes shared between srt jobs.
#  1. The profile says node_sharing: exclusive and the job was submitted without --exclusive:
#     the launcher refuses it before any step, saying what to do.
#  2. node_sharing: shared with one slot, so two jobs get the same ports (as two jobs whose ids
#     collide modulo shared_job_slots do): the second, on the first's two nodes, stops at the
#     bind test, before any worker, naming a node and a port; the first runs on untouched.
# The lab's profile is edited for the test and put back on every exit (the plugin and the
# launcher read it for each job; the launch tests hold the lab one at a time).
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"

profile="$LAB_BASE/etc/srt/cluster.yaml"
saved=$(mktemp)
cp "$profile" "$saved"
jid2=
finish() {
  cp "$saved" "$profile"
  rm -f "$saved"
  launch_cancel_job
  [[ -n "$jid2" ]] && scancel "$jid2" 2>/dev/null
  true
}
trap finish EXIT
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"

# 1. exclusive profile, shared allocation
jid=$(LAUNCH_SHARED=1 launch_submit "$recipe" -w node1,node2)
echo "job $jid: exclusive profile, submitted without --exclusive"
lab_wait_job "$jid" 60 >/dev/null || true
reason=$(launch_status "$jid" reason)
echo "status.json: $(launch_status "$jid" state): $reason"
[[ "$(launch_status "$jid" state)" == failed && "$reason" == *"node_sharing: exclusive"* &&
   "$reason" == *"submit it with --exclusive"* && "$reason" == *"no worker was started"* ]] ||
  { launch_show "$jid"; lab_fail "a shared allocation under an exclusive profile was not refused as such"; }
launch_expect_class "$jid" node
launch_assert_clean "$jid" 15

# 2. shared profile, one slot: the same ports for every job
sed -i -e 's/^node_sharing: .*/node_sharing: shared/' -e '/^shared_job_slots:/d' "$profile"
echo "shared_job_slots: 1" >> "$profile"
jid=$(SRT_STANDIN_TOKEN_MS=300 LAUNCH_SHARED=1 launch_submit "$recipe" -w node1,node2)
echo "job $jid (first)"
launch_wait_state "$jid" benchmark 90 || { launch_show "$jid"; lab_fail "the first job never reached the benchmark"; }
jid2=$(LAUNCH_SHARED=1 launch_submit "$recipe" -w node1,node2)
echo "job $jid2 (second, same nodes, same ports)"
lab_wait_job "$jid2" 90 >/dev/null || true
reason=$(launch_status "$jid2" reason)
echo "status.json of $jid2: $(launch_status "$jid2" state): $reason"
[[ "$(launch_status "$jid2" state)" == failed && "$reason" =~ ports:\ node\ node[12]:\ port\ [0-9]+\ \(for\ [^\)]+\)\ cannot\ be\ bound &&
   "$reason" == *"no worker was started"* ]] ||
  { launch_show "$jid2"; lab_fail "the second job did not stop at the bind test naming node and port"; }
launch_expect_class "$jid2" node node1 node2
[[ ! -e "$(launch_job_dir "$jid2")/logs/node1_prefill_0.out" && ! -e "$(launch_job_dir "$jid2")/logs/node2_decode_0.out" ]] ||
  lab_fail "the second job started a worker"
[[ "$(launch_status "$jid" state)" == running && -n "$(squeue -h -j "$jid" 2>/dev/null)" ]] ||
  { launch_show "$jid"; lab_fail "the first job did not run on"; }
launch_assert_clean "$jid2" 15
scancel "$jid"
lab_wait_job "$jid" 60 >/dev/null || true
launch_assert_clean "$jid" 15
echo "PASS: an exclusive profile refuses a shared allocation; a second job on taken ports stops at the bind test"

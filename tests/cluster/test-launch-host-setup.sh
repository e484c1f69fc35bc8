#!/usr/bin/env bash
# test-launch-host-setup.sh BASE: a recipe's host_setup (srtctl's) runs on the node's host through
# a real srun of the job, before anything else of it: its commands failing there (exit 3, as
# InferenceX's check-rdma.sh fails on a NIC whose port is down) end the job before any worker,
# naming the node, with failure class "node"; the teardown still runs on the node, and both
# outputs are in the job's logs.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
t0=$(lab_now)
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml:override_tp8_c4"
# shellcheck disable=SC2016  # expanded by the node's bash
jid=$(launch_helper_submit "$recipe" \
  --set 'host_setup={"commands": ["echo checking the RDMA ports of $SLURMD_NODENAME", "echo port 1 is DOWN; exit 3"], "teardown": ["echo undone on $SLURMD_NODENAME"]}')
echo "job $jid: host_setup fails on the node"
result=$(lab_wait_job "$jid" 60) || true
[[ "$result" == *"JobState=FAILED"* ]] || { launch_show "$jid"; lab_fail "job $jid did not fail: $result"; }
reason=$(launch_status "$jid" reason)
echo "reason: $reason"
node=$(sed -n 's/^host_setup failed on \([^ ,]*\) (no worker was started)$/\1/p' <<< "$reason")
[[ -n "$node" ]] || lab_fail "the reason does not name the node whose host_setup failed"
launch_expect_class "$jid" node "$node"
dir=$(launch_job_dir "$jid")
grep -qx "checking the RDMA ports of $node" "$dir/logs/host_setup_$node.out" ||
  lab_fail "logs/host_setup_$node.out lacks the commands' output: $(cat "$dir/logs/host_setup_$node.out" 2>&1)"
grep -qx "undone on $node" "$dir/logs/host_teardown_$node.out" ||
  lab_fail "the teardown did not run on $node after the failure"
[[ -z "$(find "$dir/logs" -name '*_agg_w*.out')" ]] || lab_fail "a worker was started after host_setup failed"
launch_assert_clean "$jid" 10
echo "PASS: host_setup failed on $node and stopped the job before its workers in $(lab_elapsed "$t0") s; teardown ran"

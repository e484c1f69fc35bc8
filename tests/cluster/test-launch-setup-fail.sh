#!/usr/bin/env bash
# test-launch-setup-fail.sh BASE: a recipe's setup_script that fails (the lab's
# pip-runtime-deps.sh with SRT_STANDIN_SETUP_FAIL=3, as a pip install that cannot reach its index)
# fails the job before any worker or the benchmark starts, and the reason names the script and its
# exit status; nothing of the job is left.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
t0=$(lab_now)
recipe="$LAUNCH_SRC/recipes/lab/dsv4/vllm/mi355x-fp4/agentic/agg.yaml:override_tp4_c1"
jid=$(launch_helper_submit "$recipe" --set 'roles.agg.env.SRT_STANDIN_SETUP_FAIL="3"')
echo "job $jid: the setup script fails with exit 3"
result=$(lab_wait_job "$jid" 120) || true
[[ "$result" == *"JobState=FAILED"* ]] || { launch_show "$jid"; lab_fail "job $jid did not fail: $result"; }
reason=$(launch_status "$jid" reason)
echo "reason: $reason"
[[ "$reason" == *"setup_script /configs/pip-runtime-deps.sh failed (exit 3): agg:0 was not started"* ]] ||
  lab_fail "the reason does not name the failed setup script"
[[ "$(launch_status "$jid" state)" == failed ]] || lab_fail "status.json does not say failed"
dir=$(launch_job_dir "$jid")
[[ ! -e "$dir/logs/benchmark.out" ]] || lab_fail "the benchmark ran after the setup script failed"
[[ ! -e "$dir/logs/node1_agg_w0.out" ]] || lab_fail "the worker was started after the setup script failed"
launch_assert_clean "$jid" 10
echo "PASS: a failed setup script stopped the job before its workers in $(lab_elapsed "$t0") s"

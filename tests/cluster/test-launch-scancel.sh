#!/usr/bin/env bash
# test-launch-scancel.sh BASE: scancel while the benchmark runs stops every step; afterwards no
# process carrying the job's SLURM_JOB_ID is left on any node, and status.json says cancelled.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"

jid=$(SRT_STANDIN_TOKEN_MS=50 launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml")
echo "job $jid"
launch_wait_state "$jid" benchmark 60 || { launch_show "$jid"; scancel "$jid"; lab_fail "never reached the benchmark"; }
echo "running: $(launch_job_pids "$jid" | wc -l) processes carry SLURM_JOB_ID=$jid"
t0=$(lab_now)
scancel "$jid"
result=$(lab_wait_job "$jid" 60) || true
echo "$result $(lab_elapsed "$t0") s after scancel"
launch_assert_clean "$jid" 15
echo "status.json: $(launch_status "$jid" state): $(launch_status "$jid" reason)"
[[ "$(launch_status "$jid" state)" == cancelled ]] || { launch_show "$jid"; lab_fail "status.json does not say cancelled"; }
launch_expect_class "$jid" cancelled
echo "PASS: scancel left nothing, $(lab_elapsed "$t0") s"

#!/usr/bin/env bash
# test-launch-unhealthy.sh BASE: a worker that never becomes healthy (stand-ins loading for
# 600 s) stops the job at the recipe's health deadline (here 3 x 1 s), with the reason in
# status.json and on the job's output, and leaves nothing running.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
work=$(lab_scratch launch-unhealthy)
recipe="$work/unhealthy.yaml"
sed -e 's/^  max_attempts: 60 .*/  max_attempts: 3/' "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" > "$recipe"
grep -q '^  max_attempts: 3$' "$recipe" || lab_fail "could not shorten the health budget"

t0=$(lab_now)
jid=$(SRT_STANDIN_LOAD_SECONDS=600 launch_submit "$recipe")
echo "job $jid: workers load for 600 s, health budget 3 s"
launch_expect_failed "$jid" 60 "workers not healthy after 3 s" "prefill:0"
launch_expect_class "$jid" engine
elapsed=$(lab_elapsed "$t0")
grep -q 'workers not healthy after 3 s' "$LAB_BASE/work/launch-$jid.out" || lab_fail "the reason is not on the job's output"
launch_assert_clean "$jid" 10
echo "PASS: stopped at the deadline, $elapsed s after submission"

#!/usr/bin/env bash
# test-launch-router-warmup.sh BASE: a router that lists every worker but answers completions 503
# for its first seconds (the AToMesh stand-in's SRT_STANDIN_ROUTER_WARMUP_503_SECONDS=4, as
# InferenceX's runs met): the launcher's canary completion is refused, retried until the router
# answers, and only then does the benchmark start, so its first point is valid and the job
# completes with every point valid.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
lab_scratch launch-router-warmup >/dev/null
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
t0=$(lab_now)
jid=$(SRT_STANDIN_ROUTER_WARMUP_503_SECONDS=4 SRT_STANDIN_TOKEN_MS=5 launch_submit "$recipe")
echo "job $jid: the router answers 503 for 4 s after it binds its port"
result=$(lab_wait_job "$jid" 180) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
log="$LAB_BASE/work/launch-$jid.out"
grep -E "router: a canary completion got HTTP 503" "$log" || { launch_show "$jid"; lab_fail "no canary was refused: the warm-up did not reach the router"; }
grep -E "router warm: a canary completion answered after [0-9.]+ s \([0-9]+ canaries" "$log" ||
  { launch_show "$jid"; lab_fail "the launcher did not wait for the router to answer"; }
# Nothing of the benchmark met the warm-up: every point is valid.
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
grep -c "benchmark c[0-9]*: ok" "$log" | grep -qx 6 || { launch_show "$jid"; lab_fail "not every point was ok"; }
launch_assert_clean "$jid" 10
echo "PASS: the canary waited out the router's warm-up; the sweep met none of it"

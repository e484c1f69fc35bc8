#!/usr/bin/env bash
# test-launch-timelimit.sh BASE: the time-limit warning srt-job asks for (--signal=B:USR1@120,
# delivered by Slurm to the batch shell only) is sent here as Slurm sends it
# (scancel --batch --signal=USR1) while the benchmark runs: the launcher stops every step,
# writes status.json "timeout" (the point that was running failed, the later ones not run) and
# runtime-logs.tar.gz, exits non-zero, and nothing of the job is left.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"

jid=$(SRT_STANDIN_TOKEN_MS=50 launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml")
echo "job $jid"
launch_wait_state "$jid" benchmark 60 || { launch_show "$jid"; lab_fail "never reached the benchmark"; }
t0=$(lab_now)
scancel --batch --signal=USR1 "$jid"
result=$(lab_wait_job "$jid" 60) && { launch_show "$jid"; lab_fail "job completed"; }
echo "$result $(lab_elapsed "$t0") s after USR1"
[[ "$result" == *"JobState=FAILED"* ]] || { launch_show "$jid"; lab_fail "expected FAILED"; }
echo "status.json: $(launch_status "$jid" state): $(launch_status "$jid" reason)"
[[ "$(launch_status "$jid" state)" == timeout ]] || { launch_show "$jid"; lab_fail "status.json does not say timeout"; }
launch_expect_class "$jid" timeout
# One step per point: the point running when the warning came is failed, the later ones not run,
# each with the reason, so `run --resume` can finish the sweep in another job.
/usr/bin/python3 - "$(launch_job_dir "$jid")/status.json" <<'PY' || { launch_show "$jid"; lab_fail "benchmark_points do not record the time limit"; }
import json, sys
points = json.load(open(sys.argv[1]))["benchmark_points"]
print("benchmark_points:", {c: p["state"] for c, p in points.items()})
states = [p["state"] for p in points.values()]
assert states.count("failed") == 1 and "not_run" in states, states
for p in points.values():
    assert p["state"] == "ok" or "time limit" in p["reason"], p
PY
# The benchmark was stopped before or while its EXIT trap wrote the runtime-logs tarball
# InferenceX collects: the launcher wrote a whole one in its place.
tar -tzf "$(launch_job_dir "$jid")/runtime-logs.tar.gz" > /dev/null || { launch_show "$jid"; lab_fail "no whole runtime-logs.tar.gz"; }
launch_assert_clean "$jid" 10
echo "PASS: time-limit warning handled in $(lab_elapsed "$t0") s"

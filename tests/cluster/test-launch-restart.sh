#!/usr/bin/env bash
# test-launch-restart.sh BASE: a decode engine that crashes mid-sweep comes back in place. The 1P1D
# lab twin with roles.decode.restart {policy: on-failure, backoff_seconds: 1} and the stand-in's
# SRT_STANDIN_CRASH_AFTER_REQUESTS on roles.decode: the 10th completion it sees (inside c16 on the
# lab) kills its EngineCore and the server exits 1, as ATOM's does. The launcher relaunches it on
# the same node, GPUs and ports as Slurm step decode_0_r1 after the backoff (its first log kept as
# <log>.1), waits for its /health and a completion through the router, cuts the point that was
# running and runs it again; the sweep completes with every point
# valid, logs/worker_restarts.json records the relaunch, status.json lists step decode_0_r1, and nothing is
# left running. The crash marker (SRT_STANDIN_CRASH_MARKER) keeps the relaunched engine, which has
# the same environment, from crashing again. The relaunch's delay after the crash is printed.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
marker=restart.crashed
rm -f "$LAB_BASE/infmax-workspace/$marker"

t0=$(lab_now)
jid=$(SRT_STANDIN_TOKEN_MS=10 launch_helper_submit "$recipe" \
        --set 'roles.decode.restart={policy: on-failure, backoff_seconds: 1}' \
        --set roles.decode.env.SRT_STANDIN_CRASH_AFTER_REQUESTS=9 \
        --set "roles.decode.env.SRT_STANDIN_CRASH_MARKER=/infmax-workspace/$marker")
echo "job $jid: decode crashes after 9 requests; restart on-failure, backoff 1 s"
dir=$(launch_job_dir "$jid")
log="$LAB_BASE/work/launch-$jid.out"
result=$(lab_wait_job "$jid" 300) || { launch_show "$jid"; lab_fail "job $jid did not complete: $result"; }
echo "$result"
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
[[ -e "$LAB_BASE/infmax-workspace/$marker" ]] || { launch_show "$jid"; lab_fail "the decode stand-in never crashed"; }

relaunch=$(grep -E "decode_0: relaunched as step decode_0_r1 on [a-z0-9]+, [0-9.]+ s after the step ended \(backoff 1\.0 s\)" "$log") ||
  { launch_show "$jid"; lab_fail "no relaunch line"; }
grep -q "decode_0: ready again" "$log" || lab_fail "the relaunched decode was not seen ready"
point=$(sed -n "s/.*benchmark c\([0-9]*\): interrupted by a worker's relaunch; run again.*/\1/p" "$log" | head -1)
[[ -n "$point" ]] || { launch_show "$jid"; lab_fail "no point was run again"; }
echo "c$point was running when the decode crashed: run again"
grep -q "crashes after 9 requests" "$dir"/logs/*_decode_w0.out.1 || lab_fail "the first life's log was not kept as <log>.1"
grep -q "crashes after" "$dir"/logs/*_decode_w0.out && lab_fail "the relaunched decode's log holds the first life's crash"
/usr/bin/python3 - "$dir/logs/worker_restarts.json" "$dir/status.json" "$point" <<'PY' || lab_fail "worker_restarts.json or status.json is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
print("worker_restarts.json:", json.dumps(r))
assert r["total_restarts"] == 1
(e,) = r["events"]
point = sys.argv[3]
assert (e["worker"], e["mode"], e["attempt"], e["outcome"], e["rerun"]) == ("decode_0", "decode", 1, "ready", "c" + point), e
assert e["exit_code"] == 1 and e["crash_log"].endswith("_decode_w0.out.1"), e
s = json.load(open(sys.argv[2]))
points = s["benchmark_points"]
assert all(p["state"] == "ok" for p in points.values()), points
assert points[point]["interrupted_runs"] == 1, points
assert [c for c, p in points.items() if "interrupted_runs" in p] == [point], points
# The relaunch is a step of its own (the lab keeps no accounting for sacct: status.json lists it).
steps = [p["step_name"] for p in s["processes"]]
assert steps.count("decode_0") == 1 and steps.count("decode_0_r1") == 1, steps
PY
report=$("$SRT_HELPER" report "$dir" 2>&1) || { echo "$report"; lab_fail "report failed"; }
grep -q "6 point(s): 6 ok, 0 failed, 0 missing" <<< "$report" || { echo "$report"; lab_fail "report does not read one valid sweep"; }
grep -Eq "^worker restarts: decode_0 exit 1 at [0-9T:Z-]+: ready, c$point run again$" <<< "$report" ||
  { echo "$report"; lab_fail "report does not say the decode was relaunched"; }
launch_assert_clean "$jid" 10
echo "relaunch: ${relaunch#*decode_0: }"
echo "PASS: the crashed decode came back in place, c$point ran again, the sweep completed in $(lab_elapsed "$t0") s"

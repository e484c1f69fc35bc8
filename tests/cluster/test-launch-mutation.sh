#!/usr/bin/env bash
# test-launch-mutation.sh BASE: the lab fails where the real system would.
# The 2P1D twin (8 DP ranks per prefill) with a router that drops remote_dp_rank from the
# kv_transfer_params it hands the decode (SRT_STANDIN_ATOMESH_MUTATION=drop-remote-dp-rank):
# the decode, computing the side channel's port as ATOM does (remote_handshake_port + offset),
# dials rank 0's channel for KV held by another rank, the transfer fails, the benchmark's
# failure-rate gate fails the point, and the job ends failed. The stand-in of before dialled the
# prefill's remote_port and passed this run. The unmutated twin passing is cluster.launch.2p1d.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"

jid=$(SRT_STANDIN_ATOMESH_MUTATION=drop-remote-dp-rank launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml")
echo "job $jid: the 2P1D twin behind a router that drops remote_dp_rank"
t0=$(lab_now)
result=$(lab_wait_job "$jid" 300) || true
echo "$result after $(lab_elapsed "$t0") s"
logs="$(launch_job_dir "$jid")/logs"
echo "status.json: $(launch_status "$jid" state): $(launch_status "$jid" reason)"
[[ "$(launch_status "$jid" state)" == failed ]] || { launch_show "$jid"; lab_fail "the mutated router's job did not fail"; }
grep -q "FAIL: request failure rate" "$logs/benchmark.out" ||
  { tail -20 "$logs/benchmark.out"; lab_fail "the benchmark did not fail on the failed transfers"; }
grep -q "the request's KV is on engine" "$logs"/node3_decode_*.out ||
  lab_fail "the decode did not say which engine's side channel it reached"
# One step per point: the first point fails and, as the recipe's own set -e loop would, the sweep
# stops there (--stall-policy stop, the default): the later points are not run.
launch_expect_class "$jid" benchmark
/usr/bin/python3 - "$(launch_job_dir "$jid")/status.json" <<'PY' || { launch_show "$jid"; lab_fail "the sweep did not stop after the failed point"; }
import json, sys
points = json.load(open(sys.argv[1]))["benchmark_points"]
print("benchmark_points:", {c: p["state"] for c, p in points.items()})
assert points["256"]["state"] == "failed", points["256"]
assert all(points[c]["state"] == "not_run" and "stopped after c256 failed" in points[c]["reason"]
           for c in ("512", "768", "1024", "2048")), points
PY
launch_assert_clean "$jid" 15
echo "PASS: a router that drops remote_dp_rank fails the lab run ($(grep -h 'FAIL: request failure rate' "$logs/benchmark.out" | head -1))"

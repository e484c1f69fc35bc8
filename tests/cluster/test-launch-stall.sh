#!/usr/bin/env bash
# test-launch-stall.sh BASE: a decode engine that stops answering mid-sweep (the stand-in's
# SRT_STANDIN_HANG_AFTER_REQUESTS, set on roles.decode only, past c8 of the 1P1D lab twin: its
# /health stays ok and its sockets open, as a wedged engine's do) while the benchmark client waits
# on it forever. srt-helper submit --stall-timeout 10: the launcher sees no completed request and
# no new result file for 10 s (router mesh_http_responses_total, engines'
# atom:requests_finished_total), cuts the benchmark and fails the job with that reason, within
# a minute, the points before the hang kept and nothing left running.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
lab_scratch launch-stall >/dev/null  # a clean work directory for the job's files
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
profile="$LAB_BASE/etc/srt/cluster.yaml"
# c4 and c8 take 5 + 10 requests with their warm-ups; the 31st request (inside c16) hangs.
hang_after=30

t0=$(lab_now)
out=$(PATH="$LAB_BASE/bin:$PATH" SRT_STANDIN_TOKEN_MS=10 "$SRT_HELPER" submit "$recipe" --profile "$profile" \
        --set roles.decode.env.SRT_STANDIN_HANG_AFTER_REQUESTS=$hang_after --stall-timeout 10 \
        -- --exclusive -o "$LAB_BASE/work/launch-%j.out" 2>&1) || { echo "$out"; lab_fail "srt-helper submit refused the job"; }
jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<< "$out")
[[ -n "$jid" ]] || { echo "$out"; lab_fail "no job id from srt-helper submit"; }
echo "job $jid: decode wedges after $hang_after requests; --stall-timeout 10"
launch_expect_failed "$jid" 120 "benchmark stalled: nothing completed for 10 s" mesh_http_responses_total \
  atom:requests_finished_total
elapsed=$(lab_elapsed "$t0")
log="$LAB_BASE/work/launch-$jid.out"
grep -q 'benchmark: cut after 10 s without a completed request' "$log" || lab_fail "the launcher did not announce the stall timeout"
grep -q 'wedged after 30 requests' "$(launch_job_dir "$jid")"/logs/*_decode_w0.out ||
  lab_fail "the decode stand-in did not say it wedged (SRT_STANDIN_HANG_AFTER_REQUESTS did not reach roles.decode)"
# The points before the hang are there; the one it hit is not.
dir="$(launch_job_dir "$jid")/fixed-seq"
for c in 4 8; do compgen -G "$dir/*-c$c.json" >/dev/null || lab_fail "no result for c$c, before the hang"; done
compgen -G "$dir/*-c16.json" >/dev/null && lab_fail "a result for c16, which the hang stopped"
launch_assert_clean "$jid" 10
echo "PASS: the stalled benchmark was cut and the job failed $elapsed s after submission"

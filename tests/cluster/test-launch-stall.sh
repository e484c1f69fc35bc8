#!/usr/bin/env bash
# test-launch-stall.sh BASE MODE: a decode engine that stops answering mid-sweep (the stand-in's
# SRT_STANDIN_HANG_AFTER_REQUESTS, set on roles.decode only: its /health stays ok and its sockets
# open, as a wedged engine's do) while the benchmark client waits on it forever. The launcher sees
# no completed request and no new result file for the stall timeout (router
# mesh_http_responses_total, engines' atom:requests_finished_total) and cuts the benchmark.
#   point  the 2P1D lab twin, whose command reads SRT_BENCHMARK_CONCURRENCIES: one step per point.
#          The decode hangs once (SRT_STANDIN_HANG_MARKER) after 420 requests, inside c512 (c256
#          takes 320 with its warm-ups); --stall-timeout 20: c256 ok, c512 stalled, c768 and later
#          not run (--stall-policy stop, the default), status.json and `report` say so.
#   whole  the 1P1D lab twin with its loop written out (the command no longer names the variable,
#          as a recipe written for srtctl): one step for the sweep, so the stall ends it whole;
#          --stall-timeout 10, the hang inside c16.
# Either way the job fails with the reason within minutes, the points before the hang are kept and
# nothing is left running.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
mode=${2:?usage: test-launch-stall.sh BASE point|whole}
work=$(lab_scratch "launch-stall-$mode")
profile="$LAB_BASE/etc/srt/cluster.yaml"
twins="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k"
case "$mode" in
  point)
    recipe="$twins/disagg-2p1d-dpa-tp8.yaml"
    hang_after=420 stall=20 marker=stall-point.hang
    ok=(256) stalled=512 not_run=(768 1024 2048)
    # In the lab's workspace (/infmax-workspace in every job): the resumed job must find the
    # marker the first job left, and a container sees only its own job's part of the results root.
    rm -f "$LAB_BASE/infmax-workspace/$marker"
    hang=(--set "roles.decode.env.SRT_STANDIN_HANG_MARKER=/infmax-workspace/$marker")
    ;;
  whole)
    # c4 and c8 take 5 + 10 requests with their warm-ups; the 31st request (inside c16) hangs.
    recipe="$work/whole-sweep.yaml"
    # shellcheck disable=SC2016  # the variable's name, literally
    sed 's/\${SRT_BENCHMARK_CONCURRENCIES:-\([0-9 ]*\)}/\1/' "$twins/disagg-1p1d-tp8.yaml" > "$recipe"
    # shellcheck disable=SC2016
    grep -qF '${SRT_BENCHMARK_CONCURRENCIES' "$recipe" && lab_fail "the whole-sweep copy still names the variable"
    hang_after=30 stall=10
    ok=(4 8) stalled=16 not_run=()
    hang=()
    ;;
  *) lab_fail "unknown mode '$mode' (point or whole)" ;;
esac

t0=$(lab_now)
jid=$(SRT_STANDIN_TOKEN_MS=10 launch_helper_submit "$recipe" \
        --set "roles.decode.env.SRT_STANDIN_HANG_AFTER_REQUESTS=$hang_after" "${hang[@]}" --stall-timeout "$stall")
echo "job $jid ($mode): decode wedges after $hang_after requests; --stall-timeout $stall"
dir=$(launch_job_dir "$jid")
log="$LAB_BASE/work/launch-$jid.out"
if [[ "$mode" == point ]]; then
  launch_expect_failed "$jid" 300 "c${ok[0]} ok" "c$stalled stalled: nothing completed for $stall s" \
    mesh_http_responses_total atom:requests_finished_total "not run: the sweep stopped after c$stalled stalled"
  grep -q "benchmark: one step per point (the command reads SRT_BENCHMARK_CONCURRENCIES): c256 c512 c768 c1024 c2048" "$log" ||
    lab_fail "the launcher did not announce one step per point"
  [[ -e "$LAB_BASE/infmax-workspace/$marker" ]] || lab_fail "the decode stand-in did not leave its hang marker"
  # status.json: each point's verdict, the steps named per point; sacct saw a step per point run.
  /usr/bin/python3 - "$dir/status.json" "$stalled" "${ok[*]}" "${not_run[*]}" <<'EOF' || lab_fail "status.json's benchmark_points are not as expected"
import json, sys
status = json.load(open(sys.argv[1]))
points = status["benchmark_points"]
print("benchmark_points:", json.dumps(points))
want = {sys.argv[2]: "stalled"}
want.update({c: "ok" for c in sys.argv[3].split()})
want.update({c: "not_run" for c in sys.argv[4].split()})
assert {c: p["state"] for c, p in points.items()} == want, want
assert points[sys.argv[2]]["step_name"] == "benchmark_c" + sys.argv[2]
steps = [p["step_name"] for p in status["processes"]]
assert [s for s in steps if s.startswith("benchmark")] == ["benchmark_c" + c for c in sys.argv[3].split()] + ["benchmark_c" + sys.argv[2]], steps
EOF
report=$("$SRT_HELPER" report "$dir" 2>&1) || true
  echo "$report"
  grep -q "stalled: nothing completed for $stall s" <<< "$report" || lab_fail "report does not say c$stalled stalled"
  grep -q "not run: the sweep stopped after c$stalled stalled" <<< "$report" || lab_fail "report does not say what was not run"
else
  launch_expect_failed "$jid" 120 "benchmark stalled: nothing completed for $stall s" mesh_http_responses_total \
    atom:requests_finished_total
  grep -q "benchmark: one step per point" "$log" && lab_fail "a command that does not read the variable was split per point"
fi
launch_expect_class "$jid" stall
elapsed=$(lab_elapsed "$t0")
grep -q "benchmark: cut after $stall s without a completed request" "$log" || lab_fail "the launcher did not announce the stall timeout"
grep -q "wedged after $hang_after requests" "$dir"/logs/*_decode_w0.out ||
  lab_fail "the decode stand-in did not say it wedged (SRT_STANDIN_HANG_AFTER_REQUESTS did not reach roles.decode)"
# The points before the hang are there; the one it hit and those after it are not.
for c in "${ok[@]}"; do compgen -G "$dir/fixed-seq/*-c$c.json" >/dev/null || lab_fail "no result for c$c, before the hang"; done
for c in "$stalled" "${not_run[@]}"; do
  compgen -G "$dir/fixed-seq/*-c$c.json" >/dev/null && lab_fail "a result for c$c, which the hang stopped"
done
launch_assert_clean "$jid" 10
echo "ok ($mode): the stalled benchmark was cut and the job failed $elapsed s after submission"

if [[ "$mode" == whole ]]; then
  # One step for the whole grid: no point can be run again alone, and --resume says why.
  rc=0
  out=$("$SRT_HELPER" run --resume "$dir" --profile "$profile" 2>&1) || rc=$?
  echo "$out"
  (( rc != 0 )) || lab_fail "run --resume of a whole-sweep job succeeded"
  grep -q "cannot resume: job $jid ran its benchmark as one step for the whole grid" <<< "$out" ||
    lab_fail "run --resume did not say why a whole-sweep job cannot be resumed"
  squeue -h | grep -q . && lab_fail "run --resume queued something: $(squeue -h)"
  echo "PASS (whole): a whole-sweep stall ends the sweep; --resume refuses it with the reason"
  exit 0
fi

# --resume: the marker is there now (the hang was transient), so a new job with the same recipe
# runs the points missing or failed in the tree (c512 and later), merged into the same tree.
# An earlier, failed result for c512 under another name (a renamed recipe's) must not stay beside
# its replacement as a second c512: the merge moves it to fixed-seq/superseded/.
echo '{"completed": 0, "num_prompts": 512}' > "$dir/fixed-seq/renamed-earlier-c512.json"
t1=$(lab_now)
rc=0
out=$(PATH="$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$profile" SRT_STANDIN_TOKEN_MS=10 \
      "$SRT_HELPER" run --resume "$dir" --profile "$profile" --no-pictures --timeout 300 2>&1) || rc=$?
echo "$out" | tail -25
rjid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<< "$out")
[[ -n "$rjid" ]] || lab_fail "run --resume submitted no job"
(( rc == 0 )) || { launch_show "$rjid"; lab_fail "run --resume exited $rc"; }
grep -qF "resuming job $jid ($dir): c512 c768 c1024 c2048, missing or failed there" <<< "$out" ||
  lab_fail "run --resume did not name the points it resumes"
grep -qF "merged into $dir (job $jid's tree): every point valid" <<< "$out" || lab_fail "run --resume did not merge"
for c in "${ok[@]}" "$stalled" "${not_run[@]}"; do
  compgen -G "$dir/fixed-seq/*-c$c.json" >/dev/null || lab_fail "no result for c$c in the merged tree"
done
/usr/bin/python3 - "$dir/status.json" "$(launch_job_dir "$rjid")/status.json" "$rjid" <<'PY' || lab_fail "the merged status.json is not as expected"
import json, sys
old, new, rjid = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
print("merged:", old["state"], old["reason"], old["resumed_by"])
assert old["state"] == "completed" and old["resumed_by"] == [rjid]
assert all(p["state"] == "ok" for p in old["benchmark_points"].values()), old["benchmark_points"]
assert old["benchmark_points"]["512"]["resumed_by"] == rjid and "resumed_by" not in old["benchmark_points"]["256"]
assert old["benchmark_points"]["512"]["superseded"] == "fixed-seq/superseded/renamed-earlier-c512.json", old["benchmark_points"]["512"]
assert new["concurrencies"] == [512, 768, 1024, 2048], new["concurrencies"]  # it ran only those
PY
[[ -f "$dir/fixed-seq/superseded/renamed-earlier-c512.json" && ! -e "$dir/fixed-seq/renamed-earlier-c512.json" ]] ||
  lab_fail "the earlier c512 result was not moved to fixed-seq/superseded/"
report=$("$SRT_HELPER" report "$dir" 2>&1) || { echo "$report"; lab_fail "report of the merged tree failed"; }
grep -q "5 point(s): 5 ok, 0 failed, 0 missing" <<< "$report" || { echo "$report"; lab_fail "report does not read one valid sweep"; }
launch_assert_clean "$rjid" 10
echo "PASS (point): c512 stalled alone, the rest not run; --resume completed the sweep in $(lab_elapsed "$t1") s, one tree"

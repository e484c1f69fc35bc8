#!/usr/bin/env bash
# test-launch-run-killed.sh BASE worker|router: `srt-helper run` of the 1P1D lab twin while,
# mid-sweep (the c4 result written, the sweep not over), the decode worker's ATOM server
# (worker) or the AToMesh router (router) is SIGKILLed on its node. `run` must exit non-zero and
# name the dead step; the collected tree keeps c4's result and its InferenceX copy, judged ok,
# while every later point is failed or missing; the runtime-logs tarball is collected, with the
# dead step's log; nothing of the job is left on any node or in squeue; no node is drained.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
what=${2:?usage: test-launch-run-killed.sh BASE worker|router}
case "$what" in
  worker) step=decode_0 dead=decode:0 log=_decode_w0.out ;;
  router) step=router dead=router log=_atomesh_0.out ;;
  *) lab_fail "kill what? '$what' (worker or router)" ;;
esac
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
first=4 last=128  # the recipe's grid: c4 .. c128
work=$(lab_scratch "run-killed-$what")
out="$work/run.out"
run_pid=
# The run is ours to end too: a failing test must not leave it polling.
trap 'launch_cancel_job; [[ -n "$run_pid" ]] && kill "$run_pid" 2>/dev/null; true' EXIT

# Slower tokens (50 ms) make every point last about a second: the kill, within a tenth of a
# second of c4's result, lands while c8 runs at the latest.
t0=$(lab_now)
PATH="$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$LAB_BASE/etc/srt/cluster.yaml" SRT_STANDIN_TOKEN_MS=50 \
  "$SRT_HELPER" run --profile "$LAB_BASE/etc/srt/cluster.yaml" --results "$work/collected" \
  --no-pictures --timeout 300 "$recipe" > "$out" 2>&1 &
run_pid=$!
show() { echo "--- srt-helper run output"; cat "$out"; [[ -n "$jid" ]] && launch_show "$jid"; }

for _ in $(seq 1 300); do
  jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$out")
  [[ -n "$jid" ]] && break
  lab_alive "$run_pid" || break
  sleep 0.1
done
[[ -n "$jid" ]] || { show; lab_fail "srt-helper run submitted no job"; }
echo "job $jid: $(basename "$recipe") through srt-helper run"

# The first point's result, complete (valid JSON), before the kill.
result="$(launch_job_dir "$jid")/fixed-seq"
for _ in $(seq 1 1200); do
  c4=$(compgen -G "$result/*-c$first.json" | sed -n 1p) || true
  [[ -n "$c4" ]] && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$c4" 2>/dev/null && break
  c4=
  lab_alive "$run_pid" || break
  sleep 0.1
done
[[ -n "$c4" ]] || { show; lab_fail "no c$first result within 120 s"; }
pid=$(launch_step_pid "$jid" "$step") || { show; lab_fail "no $step process found"; }
kill -KILL "$pid"
t1=$(lab_now)
echo "c$first written after $(lab_elapsed "$t0") s; killed $dead (pid $pid); results then: $(find "$result" -name '*.json' -printf '%f ')"
[[ -z $(compgen -G "$result/*-c$last.json") ]] || lab_fail "the sweep was already over: the kill was not mid-sweep"

for _ in $(seq 1 1200); do lab_alive "$run_pid" || break; sleep 0.1; done
lab_alive "$run_pid" && { show; lab_fail "srt-helper run still running 120 s after the kill"; }
rc=0
wait "$run_pid" || rc=$?
run_pid=
echo "srt-helper run exited $rc, $(lab_elapsed "$t1") s after the kill"
cat "$out"
(( rc != 0 )) || lab_fail "srt-helper run exited 0 after $dead was killed"
grep -E "^job $jid ended: FAILED" "$out" || lab_fail "run does not say the job failed"
grep -E "^reason: failed: $dead on node[0-9]+ ended" "$out" || lab_fail "run does not give the dead step ($dead) as the reason"
want_class=engine
[[ "$dead" == router ]] && want_class=router
grep -E "^failure class: $want_class \(node[0-9]+\)$" "$out" || lab_fail "run does not give the failure class ($want_class) and node"

# The collected tree: c4 kept and judged ok (its InferenceX copy too), every later point not.
dir="$work/collected/$jid"
[[ -s "$dir/fixed-seq/$(basename "$c4")" ]] || lab_fail "c$first's result is not in $dir/fixed-seq"
# run's verdict per point: the lines after "job N ended", up to the report's tables.
verdicts=$(sed -n "/^job $jid ended:/,/^\$/p" "$out" | grep -E '^  c[0-9]+ +(ok|FAILED):' || true)
grep -qE "^  c$first +ok: $first completed" <<< "$verdicts" || lab_fail "c$first is not judged ok with $first completed"
compgen -G "$dir/*_srt-${jid}_conc${first}_gpus_16_*.json" >/dev/null || lab_fail "no InferenceX copy of c$first in $dir"
ok=$(grep -cE ' ok:' <<< "$verdicts" || true)
bad=$(grep -cE ' FAILED:' <<< "$verdicts" || true)
grep -qE "^  c$last +FAILED:" <<< "$verdicts" || lab_fail "c$last is not reported failed"
(( ok >= 1 && ok + bad == 6 && bad >= 1 )) || lab_fail "expected c$first ok and the later points failed: $ok ok, $bad failed"
while read -r n; do
  [[ -s $(compgen -G "$dir/fixed-seq/*-c$n.json") ]] || lab_fail "c$n judged ok without its result in $dir"
done < <(sed -nE 's/^  c([0-9]+) +ok:.*/\1/p' <<< "$verdicts")
echo "collected: $ok point(s) ok and kept, $bad failed or missing"

# The logs: the runtime-logs tarball the sweep writes on its way out, with the dead step's log.
[[ -s "$dir/runtime-logs.tar.gz" ]] || lab_fail "no runtime-logs.tar.gz in $dir"
listing=$(tar -tzf "$dir/runtime-logs.tar.gz") || lab_fail "runtime-logs.tar.gz is not a whole tarball"
grep -q -- "$log\$" <<< "$listing" || lab_fail "runtime-logs.tar.gz lacks the *$log log"
echo "logs archived: $(grep -c '\.out$' <<< "$listing") .out files in runtime-logs.tar.gz"

# Nothing left: no process, no step, no drained node.
launch_assert_clean "$jid" 10
steps=$(squeue -h -s -j "$jid" 2>/dev/null || true)
[[ -z "$steps" ]] || lab_fail "steps of job $jid still in squeue: $steps"
bad_nodes=$(sinfo -h -N -t drain,draining,drained,down,fail -o '%N %T' 2>/dev/null || true)
[[ -z "$bad_nodes" ]] || lab_fail "nodes not in service after the job: $bad_nodes"
echo "PASS: $dead killed mid-sweep: run exited $rc with the reason, c$first kept, logs archived, nothing left"

#!/usr/bin/env bash
# test-launch-run.sh BASE RECIPE: the lab twin RECIPE (FILE or FILE:SELECTOR) runs end to end with srt-job: every worker
# healthy, the router's /workers gate passed, then, while the benchmark runs, the listening-port
# audit (tests/tools/port_audit.py against the Plan) is clean on every node; the benchmark
# completes (one result per concurrency), the job ends COMPLETED 0:0 with status.json
# "completed", the logs carry srtctl's names, and nothing of the job is left on any node.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
recipe=${2:?usage: test-launch-run.sh BASE RECIPE}
[[ "$recipe" = /* ]] || recipe="$LAUNCH_SRC/$recipe"
t0=$(lab_now)

# Slower tokens keep the sweep running long enough to audit it while it serves (the 1P1D twin;
# the 2P1D twin's recipe sets its own timing model, which is slower still).
jid=$(SRT_STANDIN_TOKEN_MS=${SRT_STANDIN_TOKEN_MS:-20} launch_submit "$recipe")
echo "job $jid: $(basename "$recipe")"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "job $jid never reached the benchmark"; }
echo "benchmark started after $(lab_elapsed "$t0") s"

nodelist=$(squeue -h -j "$jid" -o %N)
plan=$(launch_plan_json "$jid" "$recipe")
for node in $(scontrol show hostnames "$nodelist"); do launch_port_audit "$jid" "$plan" "$node"; done
echo "port audit clean on every node after $(lab_elapsed "$t0") s"

result=$(lab_wait_job "$jid" 600) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
dir=$(launch_job_dir "$jid")
# One result per planned point; a command reading SRT_BENCHMARK_CONCURRENCIES ran one step each.
read -r want points < <(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))
print(len(p["benchmark_points"]), " ".join(map(str, p["benchmark_points"])))' "$plan")
(( want > 0 )) || lab_fail "the shipped twin's command should read SRT_BENCHMARK_CONCURRENCIES (no benchmark_points in the plan)"
got=$(find "$dir/fixed-seq" -name '*.json' | wc -l)
(( got == want )) || lab_fail "expected $want benchmark results, found $got in $dir/fixed-seq"
for c in $points; do
  grep -q "benchmark c$c: ok" "$dir/logs/sweep_$jid.log" || lab_fail "the launcher did not report c$c ok from its own step"
done
[[ -s "$dir/runtime-logs.tar.gz" && -s "$dir/logs.tar.gz" ]] || lab_fail "log archives missing in $dir"
# Every process's log under the name the Plan gives it (srtctl's: <node>_<role>_w<i>.out for a
# worker, <node>_<router>_0.out, benchmark.out), and the sweep's.
mapfile -t logs < <(/usr/bin/python3 -c 'import json,sys
for p in json.load(open(sys.argv[1]))["processes"]: print(p["log_file"])' "$plan")
(( ${#logs[@]} > 0 )) || lab_fail "the Plan names no log file"
for log in "${logs[@]}" "sweep_$jid.log"; do
  [[ -s "$dir/logs/$log" ]] || lab_fail "log $log missing"
done
launch_assert_clean "$jid" 10
echo "PASS: $(basename "$recipe") in $(lab_elapsed "$t0") s ($got results)"

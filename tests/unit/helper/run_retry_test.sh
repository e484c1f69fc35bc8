#!/usr/bin/env bash
# srt-helper run --retry N against a faked Slurm: sbatch submits jobs 501, 502, ...
# and plays the launcher's part, leaving <results_root>/<job>/status.json as a job that ended
# that way would (the launcher's own failure classes are the lab's and unit_launch_failure's to
# check); squeue finds nothing, sacct gives the job's end.
#   node:   job 501 fails with failure_class node on node2 -> run submits 502 with
#           --exclude=node2, which completes with every point valid: exit 0.
#   engine: a failed engine is not retried, whatever --retry says: one job, exit 1.
#   hint:   a node failure without --retry: one job, exit 1, and the resubmission to type.
# And run's gate, InferenceX's collector rules: a recipe without a grid whose command loops over
# $CONC_LIST ("4 8 16" in run's environment, which sbatch exports), the job leaving srtctl's layout
# (logs/sa-bench_isl_64_osl_16/results_concurrency_<N>_gpus_16.json):
#   conc-list:     every point there: exit 0.
#   conc-missing:  c16 left out: exit 1, the missing point named.
# Usage: run_retry_test.sh SRT_HELPER SOURCE_DIR
set -euo pipefail
helper=${1:?usage: run_retry_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: run_retry_test.sh SRT_HELPER SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=fake_job.sh
source "$(dirname "${BASH_SOURCE[0]}")/fake_job.sh"
fake_job_setup run-retry-test
mkdir -p "$work/bin" "$work/rec"
# A valid result (c4 of a saved run) stands for every point of a completed job, its max_concurrency
# the point's own (InferenceX's collector checks it against the file name's N).
fixtures="$src/tests/fixtures/results/4101/fixed-seq"

# sbatch: the next job id; the job's end is the next line of rec/plan ("node", "engine" or
# "completed"), written as its status.json (and its results, when completed).
cat > "$work/bin/sbatch" <<SH
#!/bin/bash
n=\$(( \$(cat "$work/rec/count" 2>/dev/null || echo 0) + 1 ))
echo "\$n" > "$work/rec/count"
jid=\$(( 500 + n ))
printf '%s\n' "\$@" > "$work/rec/sbatch.\$n.args"
how=\$(sed -n "\${n}p" "$work/rec/plan")
dir="$work/results/\$jid"
mkdir -p "\$dir/fixed-seq"
case "\$how" in
  node) echo '{"state": "failed", "reason": "node failure: Slurm ended the job (NODE_FAIL): node2 down* (Not responding)", "failure_class": "node", "failure_nodes": ["node2"]}' > "\$dir/status.json"
        echo "\$jid FAILED 1:0" > "$work/rec/end.\$jid" ;;
  engine) echo '{"state": "failed", "reason": "decode:0 on node2 ended (exit code 1) during benchmark", "failure_class": "engine", "failure_nodes": ["node2"]}' > "\$dir/status.json"
        echo "\$jid FAILED 1:0" > "$work/rec/end.\$jid" ;;
  completed) echo '{"state": "completed", "reason": "benchmark finished"}' > "\$dir/status.json"
        for c in 4 8 16 32 64 128; do
          /usr/bin/python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); r["max_concurrency"] = int(sys.argv[2]); json.dump(r, open(sys.argv[3], "w"))' \
            "$fixtures/dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024-c4.json" "\$c" "\$dir/fixed-seq/lab-c\$c.json"
        done
        echo "\$jid COMPLETED 0:0" > "$work/rec/end.\$jid" ;;
  srtctl|srtctl-short) echo '{"state": "completed", "reason": "benchmark finished"}' > "\$dir/status.json"
        points=\$(tr ',' ' ' <<< "\$CONC_LIST")
        [[ "\$how" == srtctl-short ]] && points=\${points% *}
        mkdir -p "\$dir/logs/sa-bench_isl_64_osl_16"
        for c in \$points; do
          /usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
r.update(max_concurrency=int(sys.argv[2]), num_prompts=100, completed=100, failed=0, total_output_tokens=1600,
         benchmark_outcome={"status": "passed", "requested": 100, "completed": 100, "failed": 0, "max_failure_rate": 0.05})
json.dump(r, open(sys.argv[3], "w"))' "$fixtures/dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024-c4.json" "\$c" \
            "\$dir/logs/sa-bench_isl_64_osl_16/results_concurrency_\${c}_gpus_16.json"
        done
        echo "\$jid COMPLETED 0:0" > "$work/rec/end.\$jid" ;;
esac
echo "\$jid"
SH
printf '#!/bin/sh\nexit 0\n' > "$work/bin/squeue"
# sacct -j JOB ... -> "STATE|EXIT"
cat > "$work/bin/sacct" <<SH
#!/bin/bash
for a in "\$@"; do case "\$a" in [0-9]*) jid=\$a ;; esac; done
[[ -n "\${jid:-}" && -f "$work/rec/end.\$jid" ]] || exit 1
read -r _ state code < "$work/rec/end.\$jid"
echo "\$state|\$code"
SH
chmod 755 "$work/bin/sbatch" "$work/bin/squeue" "$work/bin/sacct"

run_case() {  # NAME PLAN EXPECTED-EXIT RUN-ARGS...
  local name=$1 plan=$2 want=$3 rc=0
  shift 3
  rm -rf "$work/rec"/* "$work/results"/*
  tr ' ' '\n' <<< "$plan" > "$work/rec/plan"
  PATH="$work/bin:$PATH" "$helper" run "$recipe" --profile "$profile" --no-pictures --timeout 30 "$@" \
    > "$work/out" 2>&1 || rc=$?
  echo "--- $name (exit $rc)"
  cat "$work/out"
  (( rc == want )) || fail "$name: exit $rc, expected $want"
}

run_case node "node completed" 0 --retry 2
[[ "$(cat "$work/rec/count")" == 2 ]] || fail "node: $(cat "$work/rec/count") jobs submitted, expected 2"
grep -q -- "--exclude" "$work/rec/sbatch.1.args" && fail "node: the first job was submitted with --exclude"
grep -qx -- "--exclude=node2" "$work/rec/sbatch.2.args" || fail "node: the retry was not submitted with --exclude=node2"
grep -qF "failure class: node (node2)" "$work/out" || fail "node: run did not print the failure class"
grep -qF "retry 1 of 2: a node failed (node2); submitting again with --exclude=node2" "$work/out" ||
  fail "node: run did not say it retries without node2"

run_case engine "engine completed" 1 --retry 2
[[ "$(cat "$work/rec/count")" == 1 ]] || fail "engine: a failed engine was retried"
grep -qF "failure class: engine (node2)" "$work/out" || fail "engine: run did not print the failure class"

run_case hint "node completed" 1
[[ "$(cat "$work/rec/count")" == 1 ]] || fail "hint: retried without --retry"
grep -qF "a node failed: to run it again without node2, add to the command: -- --exclude=node2 (or pass --retry N)" "$work/out" ||
  fail "hint: run did not say how to resubmit without node2"
# No grid, and a command that loops over $CONC_LIST itself.
recipe_grid=$recipe
recipe="$work/conc-list.yaml"
# shellcheck disable=SC2016  # the variable's name, literally
sed -e '/^  concurrencies: /d' -e 's/\${SRT_BENCHMARK_CONCURRENCIES:-4 8 16 32 64 128}/${CONC_LIST}/' "$recipe_grid" > "$recipe"
grep -q 'concurrencies:' "$recipe" && fail "the conc-list recipe still has a grid"
export CONC_LIST="4 8 16"
run_case conc-list "srtctl" 0
grep -Eq "^  c16 +ok: 100 completed" "$work/out" || fail "conc-list: c16 was not judged ok"
run_case conc-missing "srtctl-short" 1
grep -qF "results: missing concurrency points: 16" "$work/out" || fail "conc-missing: run did not name the missing point"
grep -Eq "^  c16 +FAILED: no result file" "$work/out" || fail "conc-missing: c16 is not listed as missing"
echo "PASS: --retry resubmits a node failure without the node, and nothing else; run judges srtctl's layout against CONC_LIST"

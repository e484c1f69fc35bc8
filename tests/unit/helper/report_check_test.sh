#!/usr/bin/env bash
# srt-helper report --check on results trees in srtctl's layout (logs/sa-bench_isl_*_osl_*/
# results_concurrency_*.json) and the AMD fixed-seq/ layout: a complete tree passes; a missing
# CONC_LIST point, 6 % failed requests and a forged benchmark_outcome each fail it (exit 1).
# Usage: report_check_test.sh SRT_HELPER SOURCE_DIR
set -euo pipefail
helper=${1:?usage: report_check_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: report_check_test.sh SRT_HELPER SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

point() {  # TREE CONC REQUESTED COMPLETED [STATUS]: one result as InferenceX's client saves it
  local tree=$1 c=$2 req=$3 done=$4 status=${5:-}
  local failed=$((req - done))
  if [[ -z "$status" ]]; then
    if (( failed * 100 > req * 5 )); then status=failed; else status=passed; fi
  fi
  mkdir -p "$tree/logs/sa-bench_isl_1024_osl_1024"
  cat > "$tree/logs/sa-bench_isl_1024_osl_1024/results_concurrency_${c}_gpus_16_ctx_8_gen_8.json" <<JSON
{"model_id": "m", "max_concurrency": $c, "num_prompts": $req, "completed": $done, "total_output_tokens": $((done * 64)),
 "request_throughput": 2.0, "output_throughput": 1.5, "total_token_throughput": 3.0,
 "benchmark_outcome": {"status": "$status", "requested": $req, "completed": $done, "failed": $failed, "max_failure_rate": 0.05}}
JSON
}

check() {  # WANT-EXIT TREE [ARGS...]
  local want=$1 tree=$2 rc=0
  shift 2
  "$helper" report --check "$tree" "$@" > "$work/out" 2>&1 || rc=$?
  echo "--- report --check $tree $* (exit $rc)"
  cat "$work/out"
  (( rc == want )) || fail "exit $rc, expected $want"
}

point "$work/good" 4 40 40
point "$work/good" 8 100 95
CONC_LIST="4 8" check 0 "$work/good"
check 0 "$work/good" --conc-list 4,8

CONC_LIST="4 8 16" check 1 "$work/good"
grep -q "missing concurrency points: 16" "$work/out" || fail "the missing point is not named"

point "$work/six" 4 40 40
point "$work/six" 8 100 94
CONC_LIST="4 8" check 1 "$work/six"
grep -q "6 of 100 requests failed" "$work/out" || fail "6 % failed is not named"

point "$work/forged" 8 100 90 passed
check 1 "$work/forged" --conc-list 8
grep -q "does not agree with its counts" "$work/out" || fail "the forged outcome is not named"

# The AMD contract's fixed-seq/ layout: the saved run whose c64 lost 15 % of its requests.
check 1 "$src/tests/fixtures/results/4101"
grep -q "c64.json: 96 of 640 requests failed" "$work/out" || fail "the fixed-seq tree's failed point is not named"
check 1 "$src/tests/fixtures/results/4101" --conc-list "4 8 16 32"
grep -q "unexpected concurrency points (not in the expected list): 64" "$work/out" || fail "c64 is not unexpected"
mkdir -p "$work/empty"
check 1 "$work/empty"
grep -q "no benchmark result files found" "$work/out" || fail "an empty tree"
check 2 "$work/good" --conc-list "4 x"
echo "report --check: all cases pass"

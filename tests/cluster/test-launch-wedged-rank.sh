#!/usr/bin/env bash
# test-launch-wedged-rank.sh BASE: one DP rank of the 2P1D twin's decode server is wedged
# (SRT_STANDIN_WEDGED_DP_RANK=5 on roles.decode: rank 5 answers no completion, /health and the
# other seven ranks are fine). The launcher's per-rank canaries (every worker's every DP rank,
# sent directly with "data_parallel_rank", as AToMesh --dp-aware would) fail the job before the
# router starts and before the first benchmark request, naming decode:0, its node and rank 5,
# with failure class engine; nothing is left running.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
work=$(lab_scratch launch-wedged-rank)
recipe="$work/wedged.yaml"
# A 10 s health budget bounds the canaries too (each rank gets until then).
sed -e 's/^  max_attempts: [0-9]* .*/  max_attempts: 10/' \
  "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml" > "$recipe"
grep -q '^  max_attempts: 10$' "$recipe" || lab_fail "could not shorten the health budget"
profile="$LAB_BASE/etc/srt/cluster.yaml"
out=$(PATH="$LAB_BASE/bin:$PATH" "$SRT_HELPER" submit "$recipe" --profile "$profile" \
        --set roles.decode.env.SRT_STANDIN_WEDGED_DP_RANK=5 -- --exclusive -o "$LAB_BASE/work/launch-%j.out" 2>&1) ||
  { echo "$out"; lab_fail "srt-helper submit refused the job"; }
jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<< "$out")
[[ -n "$jid" ]] || { echo "$out"; lab_fail "no job id from srt-helper submit"; }
echo "job $jid: decode:0's DP rank 5 is wedged"
decode_node=$(/usr/bin/python3 -c 'import json,sys
print(next(p["node"] for p in json.load(open(sys.argv[1]))["processes"] if p["name"] == "decode:0"))' \
  "$(launch_job_dir "$jid")/plan.json" 2>/dev/null || true)
launch_expect_failed "$jid" 120 "decode:0 on " ": DP rank 5 of 8 did not answer a canary completion within 10 s" \
  "no answer within the read timeout" "a wedged rank" "21 rank(s) before it answered"
[[ -n "$decode_node" ]] || decode_node=$(/usr/bin/python3 -c 'import json,sys
print(next(p["node"] for p in json.load(open(sys.argv[1]))["processes"] if p["name"] == "decode:0"))' "$(launch_job_dir "$jid")/plan.json")
launch_expect_class "$jid" engine "$decode_node"
logs="$(launch_job_dir "$jid")/logs"
[[ ! -e "$logs/benchmark.out" ]] || lab_fail "the benchmark started: $(head -5 "$logs/benchmark.out")"
compgen -G "$logs/*_atomesh_*.out" >/dev/null && lab_fail "the router was started: $(ls "$logs")"
launch_assert_clean "$jid" 15
echo "PASS: a wedged DP rank failed the job before the router and the benchmark, named with its worker, node and rank"

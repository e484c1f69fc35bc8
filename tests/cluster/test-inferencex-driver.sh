#!/usr/bin/env bash
# test-inferencex-driver.sh BASE: InferenceX's srt driver switched to srt-spank with one PATH line,
# replayed on the lab as the driver runs it (inferencex-runner.md (a1) and the driver's readers):
#   - `srtctl apply --set post_eval.command=[...] --set post_eval.passthrough_env=[...]
#     --set benchmark.stream_output=true -f R --json --yes --file R`, srtctl being the entry point
#     srt-spank installs (helper/srtctl-path first on PATH), in a checkout whose srtslurm.yaml sets
#     container_runtime: docker (reported, nothing changes), with the workflow's variables
#     (CONC_LIST, ISL, OSL, PREFILL_*/DECODE_*, MODEL, RUN_EVAL, EVAL_CONC) in its environment;
#   - stdout read as the driver reads it (json.loads of the whole file: one document, its fields
#     and types), the sweep log <output_dir>/logs/sweep_<id>.log present when apply returns;
#   - the job followed to its end: COMPLETED 0:0 (scontrol: the lab keeps no accounting);
#   - the recipe is the lab twin with InferenceX's fixed-sequence script for its benchmark
#     (tests/cluster/infmax-workspace stands in for it): srtctl's layout under logs/, the
#     benchmark's output streamed into the sweep log, the eval run after it (logs/eval.out,
#     logs/eval_results/);
#   - the results tree passes `report --check` with CONC_LIST, and fails it with a point removed
#     and with 6 % of a point's requests failed.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
work="$LAB_BASE/work/inferencex-driver"
rm -rf "$work"
mkdir -p "$work"
# The checkout the driver runs srtctl in: the job's steps start in the submit directory, and the
# lab's bwrap sandbox has a /tmp of its own (container.cpp), where the lab's base is: so here, in
# ctest's working directory (the build tree), as a runner's checkout is on a shared file system.
checkout="$PWD/inferencex-driver-checkout"
rm -rf "$checkout"
mkdir -p "$checkout"
trap 'launch_cancel_job; rm -rf "$checkout"' EXIT

# The lab twin, its benchmark InferenceX's fixed-sequence script and its grid the workflow's.
recipe="$work/dsv4-disagg-1p1d.yaml"
/usr/bin/python3 - "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" "$recipe" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
bench = doc["benchmark"]
bench.pop("concurrencies", None)
bench["command"] = "bash /infmax-workspace/benchmarks/multi_node/srt_fixed_sequence.sh"
bench.setdefault("env", {})["SRT_STANDIN_NUM_PROMPTS"] = "16"
yaml.safe_dump(doc, open(sys.argv[2], "w"), sort_keys=False)
PY
# The runner's own cluster configuration, as the driver renders it into the checkout.
printf 'container_runtime: docker\ndefault_mounts:\n  /home/runner: /root\n' > "$checkout/srtslurm.yaml"

srtctl_dir="$(dirname "$SRT_HELPER")/srtctl-path"
[[ -x "$srtctl_dir/srtctl" ]] || lab_fail "no srtctl entry point at $srtctl_dir"
eval_command='["bash", "{infmax_workspace}/benchmarks/multi_node/srt_eval.sh", "{endpoint}", "{infmax_workspace}"]'
t0=$(lab_now)
rc=0
(cd "$checkout" &&
  PATH="$srtctl_dir:$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$LAB_BASE/etc/srt/cluster.yaml" \
  CONC_LIST="4 8" ISL=64 OSL=16 MODEL=deepseek-ai/DeepSeek-V4-Pro \
  PREFILL_NUM_WORKERS=1 PREFILL_TP=8 DECODE_NUM_WORKERS=1 DECODE_TP=8 RUN_EVAL=true EVAL_CONC=4 \
  srtctl apply --set "post_eval.command=$eval_command" --set 'post_eval.passthrough_env=["EVAL_CONC"]' \
    --set benchmark.stream_output=true -f "$recipe" --json --yes --file "$recipe" \
    > "$work/srt-submission.json" 2> "$work/apply.err") || rc=$?
cat "$work/apply.err"
(( rc == 0 )) || { cat "$work/srt-submission.json"; lab_fail "srtctl apply exited $rc"; }
read -r jid dir < <(/usr/bin/python3 - "$work/srt-submission.json" <<'PY'
import json, sys
m = json.loads(open(sys.argv[1]).read())  # the driver's reader: exactly one document
assert m["status"] == "submitted", m
assert isinstance(m["slurm_job_id"], str) and m["slurm_job_id"].isdigit(), m
assert m["output_dir"].startswith("/") and m["output_dir"].endswith("/" + m["slurm_job_id"]), m
assert m["metadata_path"] == m["output_dir"] + "/" + m["slurm_job_id"] + ".json", m
print(m["slurm_job_id"], m["output_dir"])
PY
) || { cat "$work/srt-submission.json"; lab_fail "the manifest is not what the driver reads"; }
sweep="$dir/logs/sweep_$jid.log"
[[ -f "$sweep" && ! -L "$sweep" ]] || lab_fail "no sweep log $sweep when apply returned"
grep -q "srtslurm.yaml: ignored, the cluster profile decides them .*container_runtime, default_mounts" "$work/apply.err" ||
  lab_fail "the runner's srtslurm.yaml was not reported"
echo "job $jid submitted through srtctl apply ($(lab_elapsed "$t0") s); sweep log present"

result=$(lab_wait_job "$jid" 300) || { cat "$sweep"; launch_show "$jid"; lab_fail "job $jid: $result"; }
echo "$result"
grep -q "^\[[0-9:]*\] benchmark| " "$sweep" || lab_fail "the benchmark's output is not in the sweep log (stream_output)"
grep -q "eval (the job's RUN_EVAL=true): step post_eval" "$sweep" || { cat "$sweep"; lab_fail "the eval did not run"; }
grep -q "eval: completed" "$sweep" || { cat "$dir/logs/eval.out"; lab_fail "the eval did not complete"; }
/usr/bin/python3 - "$dir/logs/eval_results/meta_env.json" <<'PY' || lab_fail "the eval's artifacts"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["endpoint"].startswith("http://") and m["endpoint"].endswith(":8000"), m
assert m["env"]["EVAL_CONC"] == "4" and m["env"]["RUN_EVAL"] == "true" and m["env"]["MODEL_NAME"], m
PY

# The collector's rules on the tree, as the workflow's CONC_LIST says, then on two broken copies.
"$SRT_HELPER" report --check "$dir" --conc-list "4 8" || lab_fail "report --check refused the job's tree"
ls "$dir/logs/sa-bench_isl_64_osl_16/"
broken="$work/broken"
cp -r "$dir" "$broken"
rm "$broken"/logs/sa-bench_isl_64_osl_16/results_concurrency_8_*.json
out=$("$SRT_HELPER" report --check "$broken" --conc-list "4 8" 2>&1) && lab_fail "a missing point passed: $out"
grep -q "missing concurrency points: 8" <<< "$out" || lab_fail "the missing point is not named: $out"
rm -r "$broken"
cp -r "$dir" "$broken"
f=$(ls "$broken"/logs/sa-bench_isl_64_osl_16/results_concurrency_4_*.json)
/usr/bin/python3 - "$f" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = 100
r.update(num_prompts=n, completed=n - 6, failed=6)
r.pop("benchmark_outcome", None)
json.dump(r, open(sys.argv[1], "w"))
PY
out=$("$SRT_HELPER" report --check "$broken" --conc-list "4 8" 2>&1) && lab_fail "6 % failed requests passed: $out"
echo "$out" | tail -3
"$SRT_HELPER" report "$dir" --no-pictures | head -5
launch_assert_clean "$jid" 10
echo "PASS: srtctl apply as InferenceX's driver calls it, job $jid COMPLETED 0:0 with its eval, the tree judged as the collector judges it, in $(lab_elapsed "$t0") s"

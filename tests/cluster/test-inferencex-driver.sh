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
tail -3 <<< "$out"
# Into a variable first: `report | head` under pipefail fails whenever head closes the pipe before
# report has written its last line (SIGPIPE), as it did once in CI.
table=$("$SRT_HELPER" report "$dir" --no-pictures) || lab_fail "report failed on the job's tree"
grep -q "^run sa-bench_isl_64_osl_16 " <<< "$table" || { echo "$table"; lab_fail "report does not read srtctl's layout as one run"; }
head -5 <<< "$table"
launch_assert_clean "$jid" 10
echo "multi-node (a1): job $jid COMPLETED 0:0 with its eval, the tree judged as the collector judges it, in $(lab_elapsed "$t0") s"

# (a2), the single-node point: an aggregated variant of the twin picked as FILE:zip_override_...[0],
# --output, the lane's srun_options and benchmark.env, the single-node eval; the collector then
# reads logs/<RESULT_FILENAME>.json (non-empty) and logs/infx-eval-exit-code.
single="$work/dsv4-agg.yaml"
/usr/bin/python3 - "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" "$single" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
doc["name"] = "lab-atom-dsv4-agg-tp8"
doc["roles"] = {"agg": doc["roles"]["prefill"]}
for k in ("connector", "mooncake_protocol"):
    doc["engine"].pop(k, None)
bench = doc["benchmark"]
bench.pop("concurrencies", None)
# InferenceX's single-node fixed-sequence point: one client run at $CONC, its result in
# $RESULT_DIR/$RESULT_FILENAME.json.
bench["command"] = "\n".join([
    "set -eo pipefail",
    "source /infmax-workspace/benchmarks/benchmark_lib.sh --validation-only",
    "check_env_vars CONC RESULT_FILENAME RESULT_DIR SRT_FRONTEND_HOST SRT_FRONTEND_PORT",
    "python3 /infmax-workspace/utils/bench_serving/benchmark_serving.py --backend openai"
    " --base-url http://${SRT_FRONTEND_HOST}:${SRT_FRONTEND_PORT} --endpoint /v1/completions"
    " --model deepseek-ai/DeepSeek-V4-Pro --tokenizer deepseek-ai/DeepSeek-V4-Pro --dataset-name random"
    " --random-input-len 64 --random-output-len 16 --random-range-ratio 1.0 --num-warmups 2"
    " --num-prompts 16 --max-concurrency ${CONC} --request-rate inf --ignore-eos"
    " --percentile-metrics ttft,tpot,itl,e2el --save-result --disable-tqdm"
    " --result-dir ${RESULT_DIR} --result-filename ${RESULT_FILENAME}.json",
])
variants = {"base": doc, "zip_override_conc": {"benchmark": {"env": {"CONC": ["4", "8"]}},
                                               "roles": {"agg": {"args": {"max-num-seqs": [8, 16]}}}}}
yaml.safe_dump(variants, open(sys.argv[2], "w"), sort_keys=False)
PY
single_eval='["bash", "{infmax_workspace}/benchmarks/single_node/srt_eval.sh", "{endpoint}", "/logs/infx-eval-exit-code"]'
name=dsv4_1k1k_fp4_atom_tp8_conc4
t1=$(lab_now)
rc=0
(cd "$checkout" &&
  PATH="$srtctl_dir:$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$LAB_BASE/etc/srt/cluster.yaml" RUN_EVAL=true   srtctl apply --json --yes --output "$checkout/srt-single.ab12/outputs"     --set 'srun_options.container-workdir="/infmax-workspace"'     --set benchmark.env.RESULT_FILENAME="$name" --set benchmark.env.RUN_EVAL=true --set benchmark.env.EVAL_ONLY=false     --set benchmark.env.FRAMEWORK=atom --set benchmark.env.RESULT_DIR="/logs"     --set "post_eval.command=$single_eval" --set 'post_eval.passthrough_env=["CONC"]'     --file "$single:zip_override_conc[0]" > "$work/srt-single.json" 2> "$work/apply-single.err") || rc=$?
cat "$work/apply-single.err"
(( rc == 0 )) || { cat "$work/srt-single.json"; lab_fail "srtctl apply (single-node) exited $rc"; }
read -r jid dir < <(/usr/bin/python3 -c 'import json,sys; m = json.loads(open(sys.argv[1]).read()); assert m["status"] == "submitted", m; print(m["slurm_job_id"], m["output_dir"])' "$work/srt-single.json") ||
  lab_fail "the single-node manifest: $(cat "$work/srt-single.json")"
[[ -f "$dir/logs/sweep_$jid.log" ]] || lab_fail "no sweep log for the single-node job"
result=$(lab_wait_job "$jid" 300) || { cat "$dir/logs/sweep_$jid.log"; launch_show "$jid"; lab_fail "job $jid: $result"; }
echo "$result"
/usr/bin/python3 - "$dir/logs/$name.json" "$dir/logs/infx-eval-exit-code" <<'PY' || lab_fail "the single-node point's result or eval exit code"
import json, os, sys
assert os.path.getsize(sys.argv[1]) > 0
r = json.load(open(sys.argv[1]))
assert r["max_concurrency"] == 4 and r["completed"] == 16, {k: r.get(k) for k in ("max_concurrency", "completed")}
assert open(sys.argv[2]).read().strip() == "0", open(sys.argv[2]).read()
PY
launch_assert_clean "$jid" 10
echo "single-node (a2): job $jid COMPLETED 0:0, logs/$name.json and infx-eval-exit-code 0, in $(lab_elapsed "$t1") s"
echo "PASS: srtctl apply as InferenceX's driver calls it, multi-node and single-node, in $(lab_elapsed "$t0") s"

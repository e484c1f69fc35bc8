#!/usr/bin/env bash
# Stand-in for InferenceX's benchmarks/multi_node/srt_fixed_sequence.sh as srtctl's custom
# benchmark runs it (inferencex-runner.md (c)): one client run per value of $CONC_LIST from the
# job's environment, each writing srtctl's sa-bench layout,
#   /logs/sa-bench_isl_${ISL}_osl_${OSL}/results_concurrency_${c}_gpus_$((ctx+gen))_ctx_${ctx}_gen_${gen}.json
# with ctx = PREFILL_NUM_WORKERS * PREFILL_TP and gen = DECODE_NUM_WORKERS * DECODE_TP, through the
# benchmark client at /infmax-workspace/utils/bench_serving (the stand-in's in the lab), with
# --num-prompts max(16, 10c) and --num-warmups 2c. SRT_STANDIN_NUM_PROMPTS caps the prompts for
# the lab's two cores.
set -eo pipefail
workspace=${INFMAX_CONTAINER_WORKSPACE:-/infmax-workspace}
# shellcheck source=../benchmark_lib.sh
source "$workspace/benchmarks/benchmark_lib.sh" --validation-only
check_env_vars SRT_FRONTEND_HOST SRT_FRONTEND_PORT CONC_LIST ISL OSL MODEL \
  PREFILL_NUM_WORKERS PREFILL_TP DECODE_NUM_WORKERS DECODE_TP
ctx=$((PREFILL_NUM_WORKERS * PREFILL_TP))
gen=$((DECODE_NUM_WORKERS * DECODE_TP))
out="/logs/sa-bench_isl_${ISL}_osl_${OSL}"
mkdir -p "$out"
for c in ${CONC_LIST//,/ }; do
  prompts=$((c * 10 > 16 ? c * 10 : 16))
  [[ -n "${SRT_STANDIN_NUM_PROMPTS:-}" ]] && prompts=$SRT_STANDIN_NUM_PROMPTS
  python3 "$workspace/utils/bench_serving/benchmark_serving.py" \
    --backend openai \
    --base-url "http://${SRT_FRONTEND_HOST}:${SRT_FRONTEND_PORT}" \
    --endpoint /v1/completions \
    --model "$MODEL" \
    --tokenizer "$MODEL" \
    --dataset-name random \
    --random-input-len "$ISL" \
    --random-output-len "$OSL" \
    --random-range-ratio 1.0 \
    --num-warmups $((2 * c)) \
    --num-prompts "$prompts" \
    --max-concurrency "$c" \
    --request-rate inf \
    --ignore-eos \
    --percentile-metrics ttft,tpot,itl,e2el \
    --save-result \
    --disable-tqdm \
    --result-dir "$out" \
    --result-filename "results_concurrency_${c}_gpus_$((ctx + gen))_ctx_${ctx}_gen_${gen}.json"
done

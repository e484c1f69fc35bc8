#!/usr/bin/env bash
# Stand-in for InferenceX's benchmarks/srt_agentic.sh (inferencex-runner.md (e)): the
# "client-only AgentX trace replay for single- and multi-node srt-slurm jobs; srt-slurm owns
# server startup" that the MI355X AgentX recipes run as srtctl's custom benchmark
# (`bash /infmax-workspace/benchmarks/srt_agentic.sh`).
#
# Same contract: requires RESULT_DIR EVAL_ONLY MODEL MODEL_PREFIX FRAMEWORK PRECISION CONC
# RESULT_FILENAME DURATION; replays against http://$SRT_FRONTEND_HOST:$SRT_FRONTEND_PORT (else
# $AIPERF_SERVER_URL, else localhost:$PORT); scrapes server metrics from
# $AIPERF_SERVER_METRICS_URLS, else (frontend not dynamo) http://<ep>/metrics for each of
# SRT_AGG_ENDPOINTS, or SRT_PREFILL_ENDPOINTS + SRT_DECODE_ENDPOINTS; one point per value of
# ${CONC_LIST:-$CONC} (with CONC_LIST: RESULT_FILENAME=<base>_conc<c>, RESULT_DIR=<dir>/conc_<c>);
# per point RESULT_DIR gets benchmark_command.txt, benchmark.log and aiperf_artifacts/
# (profile_export.jsonl, profile_export_aiperf.json, server_metrics_export.json), and the
# aggregate is $AGENTIC_OUTPUT_DIR/$RESULT_FILENAME.json (AGENTIC_OUTPUT_DIR defaults to the
# workspace). Steps per point: replay -> aggregate -> validate; every step runs, the first
# failure's status is the point's (and the first failing point's is the script's); a signal
# during the replay ends the replay and the script with 128+n, nothing scored.
# AIPERF_FAILED_REQUEST_THRESHOLD (default 0.10) is the validation's failed share;
# AIPERF_REQUIRED_SERVER_METRIC_PREFIX (e.g. atom:) makes missing server metrics an error.
#
# What differs from InferenceX's: the replay is the lab's agentx_replay.py (not aiperf) over a
# synthetic trace (not semianalysis_cc_traces; no `hf download`), the aggregate and validation
# are agentx_aggregate.py (not infx.results.agentic); no power adapter or analysis step (the lab
# has no power telemetry); no drain wait between points (CONC_LIST should hold one value, as
# InferenceX's newest shape requires); EVAL_ONLY=true skips the replay, as there is nothing to
# replay.
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
workspace=${INFMAX_CONTAINER_WORKSPACE:-/infmax-workspace}
# shellcheck source=benchmark_lib.sh
source "$workspace/benchmarks/benchmark_lib.sh" --validation-only
check_env_vars RESULT_DIR EVAL_ONLY MODEL MODEL_PREFIX FRAMEWORK PRECISION CONC \
  RESULT_FILENAME DURATION || exit 1

bench="$workspace/utils/bench_serving"
replay="$bench/agentx_replay.py"
scorer="$bench/agentx_aggregate.py"
python=${AGENTX_PYTHON:-python3}

if [[ "${EVAL_ONLY}" == "true" ]]; then
  echo "srt_agentic.sh: EVAL_ONLY=true: no trace replay"
  exit 0
fi

if [[ -n "${SRT_FRONTEND_HOST:-}" || -n "${SRT_FRONTEND_PORT:-}" ]]; then
  check_env_vars SRT_FRONTEND_HOST SRT_FRONTEND_PORT || exit 1
  server_url="http://${SRT_FRONTEND_HOST}:${SRT_FRONTEND_PORT}"
elif [[ -n "${AIPERF_SERVER_URL:-}" ]]; then
  server_url=$AIPERF_SERVER_URL
else
  check_env_vars PORT || exit 1
  server_url="http://localhost:${PORT}"
fi

metrics_urls=()
if [[ -n "${AIPERF_SERVER_METRICS_URLS:-}" ]]; then
  IFS=',' read -r -a metrics_urls <<<"${AIPERF_SERVER_METRICS_URLS%,}"
elif [[ "${SRTCTL_FRONTEND_TYPE:-}" != "dynamo" ]]; then
  endpoints=${SRT_AGG_ENDPOINTS:-}
  if [[ -z "${endpoints//,/}" ]]; then
    endpoints="${SRT_PREFILL_ENDPOINTS:-},${SRT_DECODE_ENDPOINTS:-}"
  fi
  IFS=',' read -r -a eps <<<"$endpoints"
  for ep in "${eps[@]}"; do
    [[ -n "$ep" ]] && metrics_urls+=("http://${ep}/metrics")
  done
fi

base_filename=$RESULT_FILENAME
base_dir=$RESULT_DIR
export AGENTIC_OUTPUT_DIR=${AGENTIC_OUTPUT_DIR:-$workspace}
export AIPERF_FAILED_REQUEST_THRESHOLD=${AIPERF_FAILED_REQUEST_THRESHOLD:-0.10}

replay_pid=
# shellcheck disable=SC2317  # reached through the traps below
on_signal() {
  local n=$1
  echo "srt_agentic.sh: signal $n during the replay; stopping it, nothing is scored" >&2
  if [[ -n "$replay_pid" ]]; then
    kill -TERM "$replay_pid" 2>/dev/null
    wait "$replay_pid" 2>/dev/null
  fi
  exit $((128 + n))
}

step_failed() {
  echo "srt_agentic.sh: $1 exited $2" | tee -a "$log" >&2
}

status=0
conc_list=${CONC_LIST:-$CONC}
for c in ${conc_list//,/ }; do
  if [[ -n "${CONC_LIST:-}" ]]; then
    export RESULT_FILENAME="${base_filename}_conc${c}" RESULT_DIR="${base_dir}/conc_${c}"
  fi
  export CONC=$c
  mkdir -p "$RESULT_DIR" "$AGENTIC_OUTPUT_DIR"
  log="$RESULT_DIR/benchmark.log"
  : >"$log"
  cmd=("$python" "$replay" profile
    --scenario inferencex-agentx-mvp
    --url "$server_url"
    --model "${SERVED_MODEL_NAME:-$MODEL}"
    --tokenizer "$MODEL"
    --endpoint-type chat
    --streaming
    --concurrency "$c"
    --benchmark-duration "$DURATION"
    --random-seed 42
    --use-server-token-count
    --public-dataset semianalysis_cc_traces_weka_062126
    --trajectory-start-min-ratio 0.25
    --trajectory-start-max-ratio 0.75
    --warmup-grace-period "${AGENTIC_WARMUP_GRACE_PERIOD:-1800}"
    --failed-request-threshold "$AIPERF_FAILED_REQUEST_THRESHOLD")
  [[ -n "${AIPERF_MAX_CONTEXT_LENGTH:-}" ]] &&
    cmd+=(--max-context-length "$AIPERF_MAX_CONTEXT_LENGTH")
  [[ -n "${AIPERF_BENCHMARK_GRACE_PERIOD:-}" ]] &&
    cmd+=(--benchmark-grace-period "$AIPERF_BENCHMARK_GRACE_PERIOD")
  (( ${#metrics_urls[@]} )) && cmd+=(--server-metrics "${metrics_urls[@]}")
  cmd+=(--artifact-dir "$RESULT_DIR/aiperf_artifacts")
  printf '%q ' "${cmd[@]}" >"$RESULT_DIR/benchmark_command.txt"
  echo >>"$RESULT_DIR/benchmark_command.txt"
  echo "srt_agentic.sh: concurrency $c: $(cat "$RESULT_DIR/benchmark_command.txt")"

  # 1. replay, in the background so that a signal reaches this script's trap at once
  trap 'on_signal 1' HUP
  trap 'on_signal 2' INT
  trap 'on_signal 15' TERM
  "${cmd[@]}" >>"$log" 2>&1 &
  replay_pid=$!
  tail -n +1 -f --pid="$replay_pid" "$log" &  # the log, live, on this script's output
  tail_pid=$!
  wait "$replay_pid"
  replay_rc=$?
  replay_pid=
  wait "$tail_pid"
  trap - HUP INT TERM
  point_rc=$replay_rc
  (( replay_rc )) && step_failed replay "$replay_rc"

  # 2. aggregate, 3. validate: each runs whatever the step before did
  for step in aggregate validate; do
    out=$("$python" "$scorer" "$step" 2>&1)
    rc=$?
    printf '%s\n' "$out" | tee -a "$log"
    (( rc )) && step_failed "$step" "$rc"
    (( point_rc == 0 )) && point_rc=$rc
  done
  (( status == 0 )) && status=$point_rc
done
exit "$status"

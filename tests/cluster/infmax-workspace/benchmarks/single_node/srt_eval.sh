#!/usr/bin/env bash
# Stand-in for InferenceX's benchmarks/single_node/srt_eval.sh as its single-node lanes set
# srtctl's post_eval (`bash {infmax_workspace}/benchmarks/single_node/srt_eval.sh {endpoint}
# /logs/infx-eval-exit-code`): the multi-node stand-in's eval, then its exit status written to the
# file the collector checks, the script itself exiting 0 (srtctl's RUN_EVAL does not fail the job;
# InferenceX reads the file instead).
set -uo pipefail
endpoint=${1:?usage: srt_eval.sh ENDPOINT EXIT_CODE_FILE}
exit_file=${2:?usage: srt_eval.sh ENDPOINT EXIT_CODE_FILE}
bash "$(dirname "$0")/../multi_node/srt_eval.sh" "$endpoint" "${INFMAX_CONTAINER_WORKSPACE:-/infmax-workspace}"
echo $? > "$exit_file"

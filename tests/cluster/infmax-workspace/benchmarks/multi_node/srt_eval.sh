#!/usr/bin/env bash
# Stand-in for InferenceX's benchmarks/multi_node/srt_eval.sh as srtctl's post_eval runs it
# (`bash {infmax_workspace}/benchmarks/multi_node/srt_eval.sh {endpoint} {infmax_workspace}`):
# it checks the workspace and its arguments as the real one does, asks the endpoint for one
# completion (the real one runs lm-eval against it), and writes its artifacts where the real one
# copies them, /logs/eval_results/ (meta_env.json with what it was given, results_<model>.json).
# SRT_STANDIN_EVAL_EXIT: the exit status to end with (a failing eval), default 0.
set -euo pipefail
endpoint=${1:?usage: srt_eval.sh ENDPOINT [INFMAX_WORKSPACE]}
workspace=${2:-/infmax-workspace}
if [[ ! -f "$workspace/benchmarks/benchmark_lib.sh" ]]; then
  echo "ERROR: $workspace/benchmarks/benchmark_lib.sh not found." >&2
  exit 1
fi
echo "lm-eval Config: endpoint=$endpoint; workspace=$workspace; MODEL_NAME=${MODEL_NAME:-}; EVAL_CONC=${EVAL_CONC:-}"
out=/logs/eval_results
mkdir -p "$out"
python3 - "$endpoint" "$out" <<'PY'
import json, os, sys, urllib.request
endpoint, out = sys.argv[1], sys.argv[2]
body = json.dumps({"model": os.environ.get("MODEL_NAME", ""), "prompt": "2+2=", "max_tokens": 4}).encode()
req = urllib.request.Request(endpoint + "/v1/completions", body, {"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=60) as r:
    answer = json.load(r)
names = ("MODEL_NAME", "EVAL_CONC", "RUN_EVAL", "EVAL_ONLY", "IS_MULTINODE")
with open(os.path.join(out, "meta_env.json"), "w") as f:
    json.dump({"endpoint": endpoint, "env": {n: os.environ.get(n) for n in names}}, f)
model = os.environ.get("MODEL_NAME", "model").replace("/", "_")
with open(os.path.join(out, f"results_{model}.json"), "w") as f:
    json.dump({"results": {"gsm8k": {"exact_match,strict-match": 1.0}}, "answered": bool(answer.get("choices"))}, f)
print("eval: 1 completion answered; artifacts in", out, flush=True)
PY
exit "${SRT_STANDIN_EVAL_EXIT:-0}"

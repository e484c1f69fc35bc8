#!/usr/bin/env bash
# test-launch-agentx.sh BASE RECIPE [direct]: an AgentX lab twin (FILE:SELECTOR, one concurrency
# per job, benchmark.env.CONC) runs end to end as InferenceX's single-node lanes run it: the worker and
# AToMesh healthy (with "direct": the twin's ATOM worker served as `frontend.type: atom`, srtctl's
# direct server on the public port, no router), the port audit clean on every node while the replay runs, then InferenceX's
# srt_agentic.sh (the lab's stand-in) writes its per-point files under logs/agentic/ and the
# aggregate logs/$RESULT_FILENAME.json, the launcher judges that aggregate as the workflow does
# (its sweep log says the point is valid), the job ends COMPLETED 0:0 with status.json
# "completed", and nothing of the job is left on any node.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
recipe=${2:?usage: test-launch-agentx.sh BASE FILE:SELECTOR}
[[ "$recipe" = /* ]] || recipe="$LAUNCH_SRC/$recipe"
if [[ "${3:-}" == direct ]]; then
  work=$(lab_scratch launch-agentx-direct)
  file=${recipe%%:*}
  sed -e 's/^    type: atomesh$/    type: atom/' -e '/^    container_image: /d' -e '/^    args:$/d' -e '/^      policy: /d' \
    "$file" > "$work/$(basename "$file")"
  grep -q '^    type: atom$' "$work/$(basename "$file")" || lab_fail "the twin no longer says frontend type atomesh where expected"
  recipe="$work/$(basename "$file"):${recipe#*:}"
fi
t0=$(lab_now)

jid=$(launch_submit "$recipe")
echo "job $jid: $(basename "$recipe")"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "job $jid never reached the benchmark"; }
echo "benchmark started after $(lab_elapsed "$t0") s"

nodelist=$(squeue -h -j "$jid" -o %N)
plan=$(launch_plan_json "$jid" "$recipe")
for node in $(scontrol show hostnames "$nodelist"); do launch_port_audit "$jid" "$plan" "$node"; done
echo "port audit clean on every node after $(lab_elapsed "$t0") s"

result=$(lab_wait_job "$jid" 300) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
dir=$(launch_job_dir "$jid")

# The variant's point and result name, as the benchmark step saw them (its Plan environment).
read -r conc name < <(/usr/bin/python3 -c 'import json,sys
b = next(p for p in json.load(open(sys.argv[1]))["processes"] if p["role"] == "benchmark")
print(b["env"]["CONC"], b["env"]["RESULT_FILENAME"])' "$plan")
aggregate="$dir/logs/$name.json"
[[ -s "$aggregate" ]] || { launch_show "$jid"; lab_fail "no AgentX aggregate $aggregate"; }
/usr/bin/python3 - "$aggregate" "$conc" <<'PY' || lab_fail "the aggregate is not a valid AgentX point"
import json, sys
a = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
acct = a["request_accounting"]
assert a["scenario_type"] == "agentic-coding", a["scenario_type"]
assert a["conc"] == want, (a["conc"], want)
assert a["num_requests_successful"] > 0, a["num_requests_successful"]
assert acct["records_error_dropped"] == 0, acct
assert set(a["request_metrics"]) == {"qps", "latency", "tokens", "throughput", "cache"}, a["request_metrics"].keys()
print(f"aggregate: conc {a['conc']}, {a['num_requests_successful']} of {a['num_requests_total']} requests succeeded")
PY
for f in benchmark_command.txt benchmark.log aiperf_artifacts/profile_export.jsonl aiperf_artifacts/profile_export_aiperf.json \
         aiperf_artifacts/server_metrics_export.json; do
  [[ -s "$dir/logs/agentic/$f" ]] || lab_fail "logs/agentic/$f missing"
done
sweep=$(cat "$dir/logs/sweep_$jid.log")
[[ "$sweep" == *"c$conc: ok, "* ]] || lab_fail "the launcher did not judge c$conc ok from the aggregate"
[[ "$sweep" == *"benchmark results: 1 point(s)"*"every one valid"* ]] || lab_fail "the launcher did not say the point is valid"
mapfile -t logs < <(/usr/bin/python3 -c 'import json,sys
for p in json.load(open(sys.argv[1]))["processes"]: print(p["log_file"])' "$plan")
for log in "${logs[@]}" "sweep_$jid.log"; do
  [[ -s "$dir/logs/$log" ]] || lab_fail "log $log missing"
done
# A recipe's setup_script ran first in each step that runs it (workers and the router): its two
# lines open the step's log, before anything of the program.
while read -r log script; do
  first=$(sed -n 1p "$dir/logs/$log") second=$(sed -n 2p "$dir/logs/$log")
  [[ "$first" == "srt-spank: setup_script $script" && "$second" == "pip-runtime-deps.sh (lab stand-in): "* ]] ||
    lab_fail "$log does not open with its setup script's lines: '$first' / '$second'"
  echo "setup script ran first in $log"
done < <(/usr/bin/python3 -c 'import json,sys
for p in json.load(open(sys.argv[1]))["processes"]:
    if p.get("setup_script"): print(p["log_file"], p["setup_script"])' "$plan")
launch_assert_clean "$jid" 10
echo "PASS: $(basename "$recipe") in $(lab_elapsed "$t0") s"

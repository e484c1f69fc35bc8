#!/usr/bin/env bash
# test-launch-kv.sh BASE MODE [RECIPE]: KV events through Slurm (docs/design.md "KV events"). RECIPE
# (default: the 2P1D DP-attention lab twin, 8 ranks per worker) is submitted with
# `srt-helper submit --set backend.enable_kv_events=true`; the stand-in engine publishes as an
# image of the profile's kv_events_capability would (SRT_STANDIN_KV_BEHAVIOUR):
#   offset  capability offset, stand-in offset: each rank binds its own port of its worker's
#           block, SRT_KV_EVENT_ENDPOINTS lists every rank's port;
#   relay   capability connect, stand-in connect (ATOM's own publisher, which binds, plus Infera's
#           hook, which connects): the launcher starts one `srt-helper kv-relay` host step per
#           worker before the workers, every rank's hook connects to its loopback TCP ingress
#           from the sandbox (a private /tmp, as enroot's), one endpoint per worker; the relays
#           end on the teardown's TERM and nothing listens on an ingress afterwards;
#   seed    the seed port's failure: a verbatim engine (no PR #1316) under an offset Plan dies
#           with "Address already in use" and the job fails naming it; with the profile saying
#           the image can do neither (capability none), sbatch refuses the recipe, naming why.
# offset/relay: while the benchmark runs, `srt-helper kv-watch --expect-ranks` runs as an
# overlapping step on every node of the job, reading SRT_KV_EVENT_ENDPOINTS (the plugin's
# contract); every rank of every worker must reach a watcher on another node than its worker
# (check_kv_watch.py). No log says "Address already in use", the port audit is clean on every
# node, the job completes and nothing of it is left.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
mode=${2:?usage: test-launch-kv.sh BASE offset|relay|seed [RECIPE]}
recipe=${3:-recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml}
[[ "$recipe" = /* ]] || recipe="$LAUNCH_SRC/$recipe"
profile="$LAB_BASE/etc/srt/cluster.yaml"
case "$mode" in
  offset) capability=offset behaviour=offset ;;
  relay) capability=connect behaviour=connect ;;
  seed) capability=offset behaviour=verbatim ;;
  *) lab_fail "MODE must be offset, relay or seed, not '$mode'" ;;
esac
t0=$(lab_now)

# The profile pins the "image's" capability; the plugin and the launcher both read it. The lab is
# this test's alone (RESOURCE_LOCK lab_launch); the fixture's profile comes back whatever happens.
set_capability() { LAB_KV_EVENTS_CAPABILITY=$1 "$HERE/lab-profile.sh" "$LAB_BASE" > /dev/null; }
restore() { launch_cancel_job; set_capability offset; }
trap restore EXIT
set_capability "$capability"

# The recipe submitted from a copy in the lab's work directory. --set writes the effective recipe
# in a private directory that is gone once sbatch returns; the kv-watch steps below get the same
# recipe written here (PyYAML, as submit writes it: JSON, which is YAML).
work="$LAB_BASE/work/kv-$mode"
mkdir -p "$work"
cp "$recipe" "$work/"
copy="$work/$(basename "$recipe")"
effective="$copy.kv-events.yaml"
/usr/bin/python3 -c 'import json,sys,yaml
r = yaml.safe_load(open(sys.argv[1]))
r.setdefault("backend", {})["enable_kv_events"] = True  # schema 2: beside engine:, as --set writes it
json.dump(r, open(sys.argv[2], "w"), indent=2)' "$copy" "$effective"
# kv_submit: `srt-helper submit` as a user runs it; prints sbatch's messages, sets `jid`.
kv_submit() {
  local out
  out=$(PATH="$LAB_BASE/bin:$PATH" SRT_STANDIN_KV_BEHAVIOUR=$behaviour SRT_STANDIN_TOKEN_MS=${SRT_STANDIN_TOKEN_MS:-20} \
        "$SRT_HELPER" submit "$copy" --profile "$profile" --set backend.enable_kv_events=true \
        -- --exclusive -o "$LAB_BASE/work/launch-%j.out" 2>&1) || { echo "$out"; return 1; }
  jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<< "$out")
  [[ -n "$jid" ]] || { echo "$out"; return 1; }
}

if [[ "$mode" == seed ]]; then
  kv_submit || lab_fail "srt-helper submit refused the recipe"
  echo "job $jid: $(basename "$recipe"), KV events on, verbatim engine, Plan in offset mode"
  result=$(lab_wait_job "$jid" 180) && { launch_show "$jid"; lab_fail "the job should have failed: $result"; }
  echo "$result after $(lab_elapsed "$t0") s"
  dir=$(launch_job_dir "$jid")
  [[ "$(launch_status "$jid" state)" == failed ]] || { launch_show "$jid"; lab_fail "status.json does not say failed"; }
  mapfile -t collided < <(grep -l "Address already in use" "$dir"/logs/*_prefill_w*.out "$dir"/logs/*_decode_w*.out || true)
  (( ${#collided[@]} )) || { launch_show "$jid"; lab_fail "no worker log says 'Address already in use'"; }
  reason=$(launch_status "$jid" reason)
  [[ "$reason" == *" ended "* ]] || lab_fail "the reason does not name the worker that ended: $reason"
  echo "reproduced in ${#collided[@]} worker log(s): $(basename -a "${collided[@]}" | tr '\n' ' '); status: $reason"
  launch_assert_clean "$jid" 10
  jid=

  set_capability none
  out=$(PATH="$LAB_BASE/bin:$PATH" "$SRT_HELPER" submit "$copy" --profile "$profile" \
        --set backend.enable_kv_events=true -- --exclusive -o "$LAB_BASE/work/launch-%j.out" 2>&1) \
    && lab_fail "a recipe the image cannot serve KV events for was submitted: $out"
  for words in backend.enable_kv_events "8 DP ranks" "kv_events_capability: none" "ATOM PR #1316" \
               "Address already in use"; do
    [[ "$out" == *"$words"* ]] || lab_fail "the refusal does not say '$words': $out"
  done
  echo "capability none: refused at submit: $(grep -m1 -o 'KV events are on.\{0,80\}' <<< "$out")..."
  echo "PASS: seed failure reproduced and prevented in $(lab_elapsed "$t0") s"
  exit 0
fi

kv_submit || lab_fail "srt-helper submit refused the recipe"
echo "job $jid: $(basename "$recipe"), KV events on, capability $capability, engine $behaviour"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "job $jid never reached the benchmark"; }
echo "benchmark started after $(lab_elapsed "$t0") s"

nodelist=$(squeue -h -j "$jid" -o %N)
plan="$(launch_job_dir "$jid")/plan.json"  # the launcher's Plan, as it ran
expect=1  # offset: one rank per endpoint
[[ "$mode" == relay ]] && expect=$(/usr/bin/python3 -c 'import json,sys
print(max(p["ranks"] for p in json.load(open(sys.argv[1]))["processes"] if p["role"] in ("prefill","decode","agg")))' "$plan")

# One subscriber per node, as overlapping steps started as from a shell in the job (its node list,
# its recipe with KV events on, as `submit --set` submitted it): the plugin gives them the job's contract,
# so no endpoint is named on the command line. (An srun --jobid from outside the job has only
# its step's nodes in SLURM_JOB_NODELIST, and the plugin then refuses the step.) Bounded by
# --seconds; each returns as soon as every endpoint delivered `expect` ranks.
watchers=() pids=()
for node in $(scontrol show hostnames "$nodelist"); do
  SLURM_JOB_NODELIST=$nodelist srun --jobid="$jid" --overlap --nodes=1 --ntasks=1 --nodelist="$node" --job-name=kv_watch --input=none \
    --srt-recipe="$effective" \
    "$SRT_HELPER" kv-watch --expect-ranks "$expect" --seconds 30 --json \
    > "$work/watch-$jid-$node.json" 2> "$work/watch-$jid-$node.err" &
  pids+=($!)
  watchers+=("$node=$work/watch-$jid-$node.json")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { cat "${watchers[$i]#*=}" "$work/watch-$jid-"*.err >&2; lab_fail "kv-watch on ${watchers[$i]%%=*} failed"; }
done
echo "kv-watch done on every node after $(lab_elapsed "$t0") s"
/usr/bin/python3 "$HERE/check_kv_watch.py" --plan "$plan" --mode "$mode" "${watchers[@]}" \
  || { launch_show "$jid"; lab_fail "KV events did not reach every subscriber"; }

# Relay mode: ATOM's own publisher still binds in every rank, on the loopback wildcard port the
# Plan gives it (tcp://127.0.0.1:*), so each rank holds one kernel-chosen port: allowed there,
# and only there (--ignore-ephemeral); every other listener must be a planned one.
audit_extra=()
[[ "$mode" == relay ]] && audit_extra=(--ignore-ephemeral)
for node in $(scontrol show hostnames "$nodelist"); do launch_port_audit "$jid" "$plan" "$node" "${audit_extra[@]}"; done
echo "port audit clean on every node (kv-event ports included)"

result=$(lab_wait_job "$jid" 600) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
dir=$(launch_job_dir "$jid")
if grep -l "Address already in use" "$dir"/logs/*; then lab_fail "a bind failed (logs above)"; fi

if [[ "$mode" == relay ]]; then
  # Every relay started before any worker, ended 0 on the teardown's TERM, and took its ingress
  # socket with it.
  /usr/bin/python3 - "$dir/status.json" <<'EOF' || lab_fail "relay steps: see above"
import json, sys
procs = json.load(open(sys.argv[1]))["processes"]
relays = [p for p in procs if p["name"].startswith("kv-relay:")]
workers = [p for p in procs if p["name"].split(":")[0] in ("prefill", "decode", "agg")]
assert relays and len(relays) == len(workers), f"{len(relays)} relays for {len(workers)} workers"
last_relay = max(p["started"] for p in relays)
assert last_relay <= min(p["started"] for p in workers), f"a worker started before a relay: {procs}"
bad = [p for p in relays if p.get("exit_code") != 0]
assert not bad, f"relays did not end 0: {bad}"
EOF
  for log in "$dir"/logs/*_kv_relay_*.out; do
    grep -q "kv-relay: stopped (signal TERM)" "$log" || { cat "$log"; lab_fail "$(basename "$log") did not stop on TERM"; }
  done
  # Each relay's ingress is a loopback TCP port of its node (reachable from a container with a
  # private /tmp): nothing may listen there once the job is over.
  while read -r node port; do
    left=$(nsenter --net="/run/netns/$LAB_NETNS_PREFIX-$node" ss -ltnH "sport = :$port")
    [[ -z "$left" ]] || lab_fail "$node still listens on the ingress port $port: $left"
  done < <(/usr/bin/python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["processes"]:
    for port in (p.get("ports") or {}).get("kv_ingress", []): print(p["node"], port)' "$plan")
  echo "relays: $(find "$dir/logs" -name '*_kv_relay_*.out' | wc -l) started before the workers, stopped on TERM, no ingress left"
fi
launch_assert_clean "$jid" 10
echo "PASS: KV events in $mode mode in $(lab_elapsed "$t0") s"

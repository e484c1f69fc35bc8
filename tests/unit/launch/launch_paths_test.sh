#!/usr/bin/env bash
# The launch state machine, one path per case, without a lab: the real
# `srt-helper launch` on the 1P1D lab twin with Slurm's srun, squeue and scancel faked (./srun,
# fake_step.py): the port check and the preflight probe run for real on this host, and the
# workers, router and benchmark are small HTTP programs at each node's own loopback address
# that misbehave as the case says. Each case checks what a user sees: launch's exit code,
# status.json (state, failure_class, failure_nodes, the reason), the console's last line, the
# logs archived, and that no step outlived the launcher.
#   completed   every state passes: exit 0, every point ok
#   ports       a planned port held on node1 before the job: failed (node), no worker started
#   preflight   the engine is not in the "image": failed (image), no worker started
#   unhealthy   decode_0 never answers /health: failed (engine) on node2 after the budget
#   exit        prefill_0 ends while it loads (before /health answers): failed (engine) on node1
#   wedged      decode_0's rank refuses completions though /health is ok: failed (engine)
#   router      the router never lists the decode worker: failed (router)
#   cold        the router lists every worker but refuses completions: failed (router)
#   bench-fail  the first point's step fails: failed (benchmark), the rest not run
#   failed6     every point has 6 % failed requests: failed (benchmark), as `run` and `report` judge
#   stall       the first point makes no progress: failed (stall) after --stall-timeout
#   stall5xx    the same while the router answers 503s all along: errors are not progress (M3)
#   contaminated  another client's 5 completions served through the router while c4 runs: the
#               router counted 107 requests and the benchmark sent 102: c4 contaminated (M3),
#               and the sweep goes on to c128
#   signal      TERM to the launcher during the benchmark: cancelled, every step stopped
#   timeout     USR1 to the launcher (sbatch --signal=B:USR1): timeout
#   timeout-deadline  the same with --grace 300: the grace shrinks to what leaves the log archives
#               their time before the end, 120 s after the warning (L7)
#   end-time    TERM with SLURM_JOB_END_TIME 140 s after the start and --grace 300: the same (L7)
#   conc-list   the recipe names no grid and its command loops over $CONC_LIST (4 8 16, from the
#               job's environment, as InferenceX's workflow exports it), writing srtctl's layout:
#               completed, each point judged by the collector's rules
#   conc-missing  the same, the benchmark leaving out c16: failed (benchmark), the point named
#   restart     roles.decode.restart {policy: on-failure, backoff_seconds: 1}; decode_0 ends (code 3)
#               while c4 runs: relaunched in place as step decode_0_r1 after the backoff, its log
#               of the first life kept as <log>.1, c4 cut and run again (its first result set
#               aside), the sweep completed with every point valid; logs/worker_restarts.json
#               records it (the console's relaunch line says how long after the end it started)
#   restart-twice  the same with max_restarts 1, and decode_0_r1 ending too: failed (engine), the
#               reason naming both exits
#   restart-never  restart: never, decode_0 ending the same way: failed (engine), as without a policy
#   eval-after  post_eval.command as InferenceX's lanes set it and RUN_EVAL=true in the job's
#               environment: after the sweep passed, the step post_eval runs the command with
#               {endpoint} and {infmax_workspace} filled in, MODEL_NAME and EVAL_CONC set; it
#               fails (exit 3), and the job still completes (srtctl's rule), saying so
#   eval-only   the same with EVAL_ONLY=true: no benchmark step, the eval's failure is the job's
#   services    a before_workers service on the prefill node (its preamble's export reaching its
#               command, ready on a log line) and an after_frontend one on the head node (ready on
#               a TCP connect): completed, each ready at its place in the console, both stopped
#   service-critical  a critical after_frontend service that ends (code 4) while c4 runs:
#               failed (service), named with its node and exit
#   service-timeout   a before_workers service whose port never opens within its 2 s: failed
#               (service) before any worker
# Usage: launch_paths_test.sh SRT_HELPER SOURCE_DIR CASE
set -euo pipefail
helper=${1:?usage: launch_paths_test.sh SRT_HELPER SOURCE_DIR CASE}
src=${2:?usage: launch_paths_test.sh SRT_HELPER SOURCE_DIR CASE}
case=${3:?usage: launch_paths_test.sh SRT_HELPER SOURCE_DIR CASE}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
holder=""
cleanup() {  # never fails: under set -e a failing kill here would become the test's exit status
  if [[ -n "$holder" ]]; then kill "$holder" 2>/dev/null || true; fi
  # A step that outlived its launcher is a failure below; here it only must not outlive the test.
  for f in "$work"/pids/*; do
    if [[ -f "$f" ]]; then kill -KILL "$(cat "$f")" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $case: $*" >&2; [[ -f "$work/out" ]] && sed 's/^/    /' "$work/out" >&2; exit 1; }

# Ports of their own (31000-31799; shared: the job's slice of 100, the frontend its first): nothing
# else on a CI machine uses them,
# and below the kernel's ephemeral range (32768-60999). Inside it, a client socket of an earlier
# case (or of anything on the host) may have been given a planned port as its own: in TIME_WAIT
# it holds that port for 60 s, and a bind fails even with SO_REUSEADDR (the client did not set
# it), so the port check rightly calls the port taken (seen in CI: three cases in a row failed).
port_base=31000
mkdir -p "$work/bin" "$work/pids" "$work/results"
cp "$here/srun" "$here/fake_step.py" "$work/bin/"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/squeue"   # no step ids: the launcher signals its sruns
printf '#!/bin/sh\nexit 0\n' > "$work/bin/scancel"
chmod 755 "$work/bin/"*

# A Slurm configuration whose slurmctld does not answer (nothing listens on 31950): the launcher
# asks libslurm whether a step's end or a signal is a node failure, and without any
# configuration libslurm's fatal() would end the process before its teardown.
cat > "$work/slurm.conf" <<CONF
ClusterName=launch-paths
SlurmctldHost=localhost
SlurmctldPort=$((port_base + 950))
MessageTimeout=2
NodeName=node[1-2] CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=node[1-2] Default=YES
CONF

engine="[env, PYTHONPATH=$src/tests/standins/pkg, /usr/bin/python3, -m, atom.entrypoints.openai_server]"
# preflight: an engine command whose python has no ATOM package, as an image without the engine.
[[ "$case" == preflight ]] && engine="[/usr/bin/python3, -m, atom.entrypoints.openai_server]"
profile="$work/cluster.yaml"
cat > "$profile" <<YAML
cluster: launch-paths
gpus_per_node: 8
container_runtime: none
node_sharing: shared
gpu_idle_vram_mib: -1
results_root: $work/results
port_range_begin: $port_base
port_range_end: $((port_base + 799))
frontend_port: $((port_base + 900))
engine_command: $engine
router_command: [$src/tests/standins/bin/atomesh]
default_health_check: {max_attempts: 4, interval_seconds: 1}
identity_mismatch: warn
kv_events_capability: offset
node_addresses:
  node1: 127.0.0.1
  node2: 127.0.0.2
YAML
# The lab twin, its benchmark's container path (/infmax-workspace) made a host path: with
# container_runtime none the probe and the benchmark run on the host. On the host no image
# either: the identity check warns (identity_mismatch: warn) instead of stopping the job.
recipe="$work/disagg-1p1d-tp8.yaml"
# Its health budget 4 x 1 s, not 60, for the cases that wait it out (they end in seconds); 30 x 1 s
# for the others, whose preflight (four python probes, bounded by the same budget) must not run
# out of it on a machine busy with other tests and a build (seen in CI: 6 s).
attempts=30
case "$case" in unhealthy|wedged|router|cold) attempts=4 ;; esac
sed -e "s|/infmax-workspace/|$work/infmax-workspace/|g" -e "s/^  max_attempts: 60 /  max_attempts: $attempts /" "$src/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" > "$recipe"
grep -q "^  max_attempts: $attempts " "$recipe" || fail "the lab twin no longer says max_attempts: 60 where this test expects it"
case "$case" in  # the decode role's restart policy (schema 2's roles.<role>.restart)
  restart) policy="{policy: on-failure, backoff_seconds: 1}" ;;
  restart-twice) policy="{policy: on-failure, max_restarts: 1, backoff_seconds: 1}" ;;
  restart-never) policy="never" ;;
  *) policy="" ;;
esac
if [[ -n "$policy" ]]; then
  sed -i "/^  decode:\$/a\    restart: $policy" "$recipe"
  grep -q "^    restart: $policy\$" "$recipe" || fail "the recipe has no roles.decode.restart"
fi
if [[ "$case" == conc-* ]]; then
  # No grid, and a command that loops over $CONC_LIST itself: one whole-sweep step.
  sed -i -e '/^  concurrencies: /d' -e 's/\${SRT_BENCHMARK_CONCURRENCIES:-4 8 16 32 64 128}/${CONC_LIST}/' "$recipe"
  grep -q '${SRT_BENCHMARK_CONCURRENCIES' "$recipe" && fail "the recipe still reads SRT_BENCHMARK_CONCURRENCIES"
fi
if [[ "$case" == eval-* ]]; then
  cat >> "$recipe" <<'YAML'
post_eval:
  command: [bash, "{infmax_workspace}/benchmarks/multi_node/srt_eval.sh", "{endpoint}", "{infmax_workspace}"]
  passthrough_env: [EVAL_LIMIT]
YAML
fi
# host_setup (srtctl's): marks written on each "host" by the commands and the teardown.
mkdir -p "$work/marks"
# shellcheck disable=SC2016  # expanded by the host's bash, not here
printf 'echo "$1 on $SLURMD_NODENAME" > %s/marks/$1-$SLURMD_NODENAME\n' "$work" > "$work/mark.sh"
case "$case" in
  host-setup)
    printf 'host_setup:\n  commands: ["bash %s setup", "echo second command"]\n  teardown: ["bash %s teardown"]\n' \
      "$work/mark.sh" "$work/mark.sh" >> "$recipe" ;;
  host-setup-fail)
    printf 'host_setup:\n  commands: ["[ $SLURMD_NODENAME != node2 ] || { echo RDMA port 1 is DOWN; exit 3; }"]\n  teardown: ["bash %s teardown"]\n' \
      "$work/mark.sh" >> "$recipe" ;;
  host-setup-timeout)
    printf 'host_setup:\n  commands: ["sleep 30"]\n  timeout_seconds: 1\n' >> "$recipe" ;;
esac
# services (schema 2's): what each case runs.
case "$case" in
  services)
    cat >> "$recipe" <<YAML
services:
  - name: store
    placement: {node: prefill}
    start: before_workers
    env: {STORE_SIZE: "64"}
    preamble: export STORE_FROM_PREAMBLE=yes
    command: [bash, -c, 'echo "store \$STORE_FROM_PREAMBLE \$STORE_SIZE on \$SLURMD_NODENAME"; sleep 1; echo store registered; exec sleep 600']
    readiness: {log: {pattern: "^store regist"}, timeout_seconds: 20, interval_seconds: 1}
  - name: side
    command: [/usr/bin/python3, -c, 'import os,socket,time; s=socket.create_server((os.environ["SRT_FAKE_ADDRESS"], $((port_base + 960)))); time.sleep(600)']
    readiness: {port: $((port_base + 960)), timeout_seconds: 20, interval_seconds: 1}
YAML
    ;;
  service-critical)
    cat >> "$recipe" <<'YAML'
services:
  - name: side
    critical: true
    command: [bash, -c, 'echo side up; while [ ! -e "$SRT_FAKE_PIDS/benchmark_c4" ]; do sleep 0.2; done; exit 4']
    readiness: {log: {pattern: side up}, timeout_seconds: 20, interval_seconds: 1}
YAML
    ;;
  service-timeout)
    printf 'services:\n  - {name: never, start: before_workers, command: [sleep, "600"], readiness: {port: %s, timeout_seconds: 2, interval_seconds: 1}}\n' \
      "$((port_base + 961))" >> "$recipe" ;;
esac
mkdir -p "$work/infmax-workspace/utils"
ln -s "$src/tests/standins" "$work/infmax-workspace/utils/bench_serving"
nodelist='node[1-2]'
# The job id picks the case's slice of the shared port range (tests/unit/launch/CMakeLists.txt).
jid=${SRT_LAUNCH_PATHS_JOB:-4700}
# shellcheck source=../helper/fake_job.sh
source "$here/../helper/fake_job.sh"   # job_env: the batch step's environment as the plugin attaches it
read -r -a env <<< "$(job_env "$jid")"

steps="" args=() grace=2 end_time=() conc=()
case "$case" in
  completed|ports|preflight) ;;
  unhealthy) steps="decode_0=unhealthy" ;;
  exit) steps="prefill_0=exit" ;;
  wedged) steps="decode_0=wedged" ;;
  router) steps="router=partial" ;;
  cold) steps="router=cold" ;;
  bench-fail) steps="benchmark_c4=fail" ;;
  failed6) steps="$(for c in 4 8 16 32 64 128; do printf 'benchmark_c%s=failed6 ' "$c"; done)" ;;
  stall) steps="benchmark_c4=stall"; args=(--stall-timeout 3) ;;
  stall5xx) steps="benchmark_c4=stall router=errors5xx"; args=(--stall-timeout 3) ;;
  contaminated) steps="benchmark_c4=stranger" ;;
  signal|timeout) steps="benchmark_c4=slow" ;;
  timeout-deadline) steps="benchmark_c4=slow" grace=300 ;;
  end-time) steps="benchmark_c4=slow" grace=300 end_time=(SLURM_JOB_END_TIME=$(($(date +%s) + 140))) ;;
  conc-list) steps="benchmark=srtctl" conc=(CONC_LIST="4 8 16") ;;
  conc-missing) steps="benchmark=srtctl-short" conc=(CONC_LIST="4 8 16") ;;
  restart|restart-never) steps="decode_0=exit-on-benchmark benchmark_c4=awhile" ;;
  eval-after) steps="post_eval=fail" conc=(RUN_EVAL=true EVAL_LIMIT=20) ;;
  eval-only) steps="post_eval=fail" conc=(EVAL_ONLY=True) ;;
  restart-twice) steps="decode_0=exit-on-benchmark decode_0_r1=exit-on-benchmark benchmark_c4=awhile" ;;
  host-setup*|services|service-timeout) ;;
  service-critical) steps="benchmark_c4=slow" ;;
  *) echo "launch_paths_test.sh: no case '$case'" >&2; exit 2 ;;
esac


if [[ "$case" == ports ]]; then
  # Another program holds a port the Plan gives node1 and not node2 (every "node" here is this
  # host), on all addresses as a worker binds it.
  held=$("$helper" plan "$recipe" --profile "$profile" --nodelist "$nodelist" --job-id "$jid" --json |
    /usr/bin/python3 -c 'import json,sys
p = json.load(sys.stdin)
on = lambda node: {port for q in p["processes"] if q["node"] == node for ports in q["ports"].values() for port in ports}
print(min(on("node1") - on("node2")))')
  /usr/bin/python3 -c 'import socket,sys,time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past an earlier case TIME_WAIT
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1); open(sys.argv[2], "w").close(); time.sleep(600)' \
    "$held" "$work/held" &
  holder=$!
  for _ in $(seq 100); do [[ -f "$work/held" ]] && break; sleep 0.1; done
  [[ -f "$work/held" ]] || fail "could not hold port $held for the case"
fi

# The launcher's environment: the job's, the fakes first on PATH, nothing of this shell's.
env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work" SLURM_CONF="$work/slurm.conf" "${env[@]}" \
  SRT_FAKE_STEPS="$steps" SRT_FAKE_ADDRESSES="node1=127.0.0.1 node2=127.0.0.2" \
  SRT_FAKE_RESULTS="$work/results" SRT_FAKE_PIDS="$work/pids" \
  SRT_FAKE_RESULT_TEMPLATE="$src/tests/fixtures/results/4101/fixed-seq/dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024-c4.json" \
  ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} \
  ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "${end_time[@]}" "${conc[@]}" \
  "$helper" launch --profile "$profile" --grace "$grace" "${args[@]}" > "$work/out" 2>&1 &
launcher=$!

if [[ "$case" == signal || "$case" == timeout* || "$case" == end-time ]]; then
  # Once the first point runs (its fake writes its pid), the signal Slurm would send.
  for _ in $(seq 600); do [[ -f "$work/pids/benchmark_c4" ]] && break; sleep 0.1; done
  [[ -f "$work/pids/benchmark_c4" ]] || fail "the benchmark never started"
  kill "-$([[ "$case" == signal || "$case" == end-time ]] && echo TERM || echo USR1)" "$launcher"
fi
# Bounded: every case ends within the health budget, the stall timeout or the grace period.
for _ in $(seq 1200); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$launcher" 2>/dev/null; then kill -KILL "$launcher"; fail "launch did not end within 120 s"; fi
rc=0
wait "$launcher" || rc=$?

status="$work/results/$jid/status.json"
[[ -f "$status" ]] || fail "no status.json"
[[ -f "$work/results/$jid/logs.tar.gz" ]] || fail "no logs.tar.gz: teardown did not run"
field() { /usr/bin/python3 -c 'import json,sys; v = json.load(open(sys.argv[1])).get(sys.argv[2], ""); print(" ".join(v) if isinstance(v, list) else v)' "$status" "$1"; }
state=$(field state) class=$(field failure_class) nodes=$(field failure_nodes) reason=$(field reason)
grep -q "job $jid $state: " "$work/out" || fail "the console does not end with the outcome ($state)"

# expect RC STATE CLASS NODES REASON-ERE: what the case must end as.
expect() {
  [[ "$rc" == "$1" ]] || fail "launch exited $rc, want $1"
  [[ "$state" == "$2" ]] || fail "status.json state '$state', want '$2' ($reason)"
  [[ "$class" == "$3" ]] || fail "failure_class '$class', want '$3' ($reason)"
  [[ "$nodes" == "$4" ]] || fail "failure_nodes '$nodes', want '$4' ($reason)"
  grep -Eq -- "$5" <<< "$reason" || fail "reason '$reason' does not match /$5/"
}
no_worker_started() {
  [[ -z "$(ls "$work/pids")" ]] || fail "steps started though the job stopped before the workers: $(ls "$work/pids")"
}
points() {  # the points' states in status.json in concurrency order, "c4=ok c8=not_run ..."
  /usr/bin/python3 -c 'import json,sys
p = json.load(open(sys.argv[1])).get("benchmark_points", {})
print(" ".join("c%s=%s" % (c, p[c]["state"]) for c in sorted(p, key=int)))' "$status"
}
rest_not_run() { echo "c4=$1 c8=not_run c16=not_run c32=not_run c64=not_run c128=not_run"; }

host_log() { cat "$work/results/$jid/logs/host_$1_$2.out" 2>/dev/null || fail "no logs/host_$1_$2.out"; }
case "$case" in
  host-setup)
    expect 0 completed "" "" "benchmark finished"
    for node in node1 node2; do
      [[ "$(cat "$work/marks/setup-$node" 2>/dev/null)" == "setup on $node" ]] || fail "host_setup did not run on $node"
      [[ "$(cat "$work/marks/teardown-$node" 2>/dev/null)" == "teardown on $node" ]] || fail "the teardown did not run on $node"
      [[ "$(host_log setup "$node")" == "second command" ]] || fail "logs/host_setup_$node.out: $(host_log setup "$node")"
    done
    grep -q "host_setup complete on 2 node(s)" "$work/out" || fail "the console does not say host_setup completed" ;;
  host-setup-fail)
    expect 1 failed node node2 "^host_setup failed on node2 \(no worker was started\)$"
    no_worker_started
    grep -q "RDMA port 1 is DOWN" <<< "$(host_log setup node2)" || fail "node2's host_setup output is not in its log"
    grep -q "host_setup (setup) failed (exit code 3) on node2" "$work/out" || fail "the console does not name node2's exit"
    # Setup was reached: the teardown runs on every node, the failing one too.
    for node in node1 node2; do [[ -f "$work/marks/teardown-$node" ]] || fail "no teardown on $node after the failure"; done ;;
  host-setup-timeout)
    expect 1 failed node "node1 node2" "^host_setup failed on node1, node2 \(no worker was started\)$"
    no_worker_started
    grep -q "host_setup (setup) timed out after 1 s on node1" "$work/out" || fail "the console does not say it timed out" ;;
  services)
    expect 0 completed "" "" "benchmark finished"
    at() { grep -n -m1 -- "$1" "$work/out" | cut -d: -f1; }
    store=$(at 'services: service:store:0 on node1 ready (log)') started=$(at 'started 2 worker steps')
    router=$(at 'router ready: ') side=$(at 'services: service:side:0 on node1 ready (tcp)')
    [[ -n "$store" && -n "$started" && -n "$router" && -n "$side" ]] || fail "a service's readiness is missing from the console"
    (( store < started && router < side )) || fail "the services were not ready at their places (store $store, workers $started, router $router, side $side)"
    [[ "$(head -1 "$work/results/$jid/logs/service_store.out")" == "store yes 64 on node1" ]] ||
      fail "logs/service_store.out: $(cat "$work/results/$jid/logs/service_store.out")" ;;
  service-critical)
    expect 1 failed service node1 "^service:side:0 on node1 ended \(exit code 4\) during benchmark$" ;;
  service-timeout)
    expect 1 failed service node1 "^service:never:0 on node1 not ready within 2 s \(readiness.timeout_seconds\): tcp 127.0.0.1:$((port_base + 961)): nothing listening"
    [[ "$(ls "$work/pids")" == service_never_0 ]] || fail "steps other than the service started: $(ls "$work/pids")" ;;
  completed)
    expect 0 completed "" "" "benchmark finished"
    [[ "$(points)" == "c4=ok c8=ok c16=ok c32=ok c64=ok c128=ok" ]] || fail "points: $(points)"
    grep -q "ranks: every worker's DP ranks answered" "$work/out" || fail "the ranks state did not pass"
    grep -q "router warm: a canary completion answered" "$work/out" || fail "the router was not warmed"
    # Every point audited, and clean: the router saw the benchmark's 2 warm-ups and 100 requests.
    /usr/bin/python3 - "$status" <<'PY' || fail "status.json's request audits: $(cat "$status")"
import json, sys
points = json.load(open(sys.argv[1]))["benchmark_points"]
for c, p in points.items():
    assert p["request_audit"]["seen"] == 102 and p["request_audit"]["warmups"] == 2, (c, p)
PY
    grep -q "benchmark: each point's requests are counted by the router's mesh_http_requests_total" "$work/out" ||
      fail "the console does not say what the audit counts" ;;
  ports)
    expect 1 failed node node1 "^ports: node node1: port $held \(for [^)]+\) cannot be bound: .*\(no worker was started\)$"
    no_worker_started ;;
  preflight)
    expect 1 failed image "" "^preflight: .*(engine|atom).*\(no worker was started\)$"
    no_worker_started ;;
  unhealthy)
    expect 1 failed engine node2 "^workers not healthy after 4 s .*decode:0 on node2 \(http://127\.0\.0\.2:[0-9]+/health: .*503"
    grep -q "workers healthy 1/2" "$work/out" || fail "the prefill worker's health was not seen" ;;
  exit)
    expect 1 failed engine node1 "^prefill:0 on node1 ended \(exit code 3\) during healthy$" ;;
  wedged)
    expect 1 failed engine node2 "^decode:0 on node2: its one DP rank did not answer a canary completion within 4 s .*503.*a wedged rank" ;;
  router)
    expect 1 failed router node1 "^the router's /workers did not list every worker within 4 s: router sees prefill 1/1, decode 0/1$" ;;
  cold)
    expect 1 failed router node1 "^the router listed every worker but did not answer a completion within 4 s \([0-9]+ canaries; the last: .*503" ;;
  bench-fail)
    expect 1 failed benchmark "" "^benchmark: "
    [[ "$(points)" == "$(rest_not_run failed)" ]] || fail "points: $(points)" ;;
  failed6)
    expect 1 failed benchmark "" "^benchmark: "
    grep -Eq "benchmark c4: failed: .*6 .*failed" "$work/out" || fail "the console does not say c4 failed for its failed requests"
    [[ "$(points)" == "$(rest_not_run failed)" ]] || fail "points: $(points)" ;;
  contaminated)
    expect 1 failed benchmark "" "^benchmark: "
    grep -q "benchmark c4: contaminated: the router's mesh_http_requests_total.* grew by 107 during the point, and the benchmark sent 102 (100 measured, 2 warm-up) and completed 100: 5 request(s) came from another client" \
      "$work/out" || fail "the console does not say c4 was contaminated, and by how many"
    # Recorded, and the sweep goes on: a stranger's request is not the job's failure.
    [[ "$(points)" == "c4=contaminated c8=ok c16=ok c32=ok c64=ok c128=ok" ]] || fail "points: $(points)"
    /usr/bin/python3 - "$status" <<'PY' || fail "status.json's c4: $(cat "$status")"
import json, sys
p = json.load(open(sys.argv[1]))["benchmark_points"]["4"]
assert p["state"] == "contaminated" and "another client" in p["reason"], p
assert p["request_audit"] == {"counter": p["request_audit"]["counter"], "seen": 107, "requested": 100, "warmups": 2, "completed": 100}, p
PY
    ;;
  stall|stall5xx)
    expect 1 failed stall "" "^benchmark: "
    grep -q "benchmark c4 stalled: nothing completed for 3 s" "$work/out" || fail "no stall line"
    [[ "$(points)" == "$(rest_not_run stalled)" ]] || fail "points: $(points)" ;;
  signal)
    expect 1 cancelled cancelled "" "^cancelled: Terminated during benchmark$" ;;
  timeout)
    expect 1 timeout timeout "" "^time limit: Slurm sent SIGUSR1 \(--signal=B:USR1\) during benchmark$" ;;
  timeout-deadline)
    expect 1 timeout timeout "" "^time limit: Slurm sent SIGUSR1 \(--signal=B:USR1\) during benchmark$"
    # 120 s left: 20 s for the KILL round and 30 s for the archives, 70 s of grace.
    grep -Eq "teardown: the job ends in (1[01][0-9]|120) s \(Slurm's time-limit warning\); logs archived before then, grace (69|70) s instead of 300 s" \
      "$work/out" || fail "the grace was not shortened to fit before the time limit"
    grep -Eq "KILL after (69|70) s" "$work/out" || fail "the steps were not stopped with the shortened grace" ;;
  end-time)
    expect 1 cancelled cancelled "" "^cancelled: Terminated during benchmark$"
    grep -Eq "teardown: the job ends in [0-9]+ s \(SLURM_JOB_END_TIME\); logs archived before then, grace [0-9]+ s instead of 300 s" \
      "$work/out" || fail "the grace was not shortened to fit before SLURM_JOB_END_TIME"
    g=$(sed -En 's/.*KILL after ([0-9]+) s.*/\1/p' "$work/out" | head -1)
    [[ -n "$g" && "$g" -le 90 ]] || fail "the steps' grace was ${g:-not said}, not at most 140 - 50 s" ;;
  conc-list)
    expect 0 completed "" "" "benchmark finished"
    out=$(cat "$work/out")
    grep -q "benchmark results: 3 point(s) under .*every one valid" <<< "$out" || fail "the three CONC_LIST points were not judged valid"
    grep -q "^.*  c16: ok, 100 completed" <<< "$out" || fail "c16 was not judged" ;;
  conc-missing)
    expect 1 failed benchmark "" "^benchmark results invalid: missing concurrency points: 16 \(expected points from the job's CONC_LIST\)$" ;;
  restart)
    expect 0 completed "" "" "benchmark finished"
    [[ "$(points)" == "c4=ok c8=ok c16=ok c32=ok c64=ok c128=ok" ]] || fail "points: $(points)"
    out=$(cat "$work/out")
    relaunched=$(grep -E "decode_0: relaunched as step decode_0_r1 on node2, [0-9.]+ s after the step ended \(backoff 1\.0 s\)" <<< "$out") ||
      fail "no relaunch line for decode_0_r1"
    grep -q "decode_0: ready again" <<< "$out" || fail "the relaunched worker was not seen healthy"
    grep -q "benchmark c4: interrupted by a worker's relaunch; run again (fixed-seq/.*-c4\.json\.interrupted_1 set aside)" <<< "$out" ||
      grep -q "benchmark c4: interrupted by a worker's relaunch; run again$" <<< "$out" || fail "c4 was not run again"
    [[ -f "$work/pids/decode_0_r1" ]] || fail "no step decode_0_r1 ran"
    record="$work/results/$jid/logs/worker_restarts.json"
    [[ -f "$record" ]] || fail "no logs/worker_restarts.json"
    /usr/bin/python3 - "$record" "$status" <<'PY' || fail "worker_restarts.json or status.json: $(cat "$record")"
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["total_restarts"] == 1, r
assert r["endpoints"]["decode_0"] == {"policy": "on-failure", "restarts": 1, "max_restarts": 3, "exhausted": False}, r
(e,) = r["events"]
assert (e["worker"], e["mode"], e["index"], e["node"], e["attempt"], e["exit_code"]) == ("decode_0", "decode", 0, "node2", 1, 3), e
assert e["outcome"] == "ready" and e["backoff_seconds"] == 1 and e["rerun"] == "c4", e
assert e["crash_log"].endswith(".1") and os.path.isfile(e["crash_log"]), e
assert "exiting with code 3" in open(e["crash_log"]).read(), e
s = json.load(open(sys.argv[2]))
assert s["benchmark_points"]["4"]["interrupted_runs"] == 1, s["benchmark_points"]["4"]
assert [p["step_name"] for p in s["processes"]].count("decode_0_r1") == 1, s["processes"]
PY
    echo "relaunch timing: ${relaunched#*decode_0: }" ;;
  restart-twice)
    expect 1 failed engine node2 "^decode:0 on node2 ended \(exit code 3\) during benchmark; decode_0 has had its 1 relaunch \(restart: on-failure, max_restarts 1\): decode_0 exit 3 at [0-9T:Z-]+, decode_0_r1 exit 3 at [0-9T:Z-]+$" ;;
  eval-after|eval-only)
    meta="$work/results/$jid/logs/eval_results/meta_env.json"
    [[ -f "$meta" ]] || fail "the eval step did not run"
    [[ -f "$work/results/$jid/logs/eval.out" ]] || fail "no eval.out"
    /usr/bin/python3 - "$meta" "$case" <<'PY' || fail "the eval's argv or environment: $(cat "$meta")"
import json, sys
m = json.load(open(sys.argv[1]))
argv, env = m["argv"], m["env"]
argv = argv[argv.index("--") + 1:]  # after srt-exec's own options
assert argv[:2] == ["bash", "/infmax-workspace/benchmarks/multi_node/srt_eval.sh"], argv
assert argv[2].startswith("http://127.0.0.1:") and argv[3] == "/infmax-workspace", argv
assert env["MODEL_NAME"] == "deepseek-ai/DeepSeek-V4-Pro", env  # the workers' --model
assert env["EVAL_CONC"] == "128", env  # the largest point of the grid
if sys.argv[2] == "eval-after":
    assert env["RUN_EVAL"] == "true" and env["EVAL_LIMIT"] == "20", env
PY
    if [[ "$case" == eval-after ]]; then
      expect 0 completed "" "" "^benchmark finished; eval ended \(exit code 3\)$"
      [[ "$(points)" == "c4=ok c8=ok c16=ok c32=ok c64=ok c128=ok" ]] || fail "points: $(points)"
      grep -q "the benchmark's result stands (the job's RUN_EVAL: a failing eval does not fail the job)" "$work/out" ||
        fail "the eval's failure was not said"
    else
      expect 1 failed benchmark node1 "^eval ended \(exit code 3\)"
      compgen -G "$work/pids/benchmark*" >/dev/null && fail "a benchmark step ran under EVAL_ONLY"
    fi ;;
  restart-never)
    expect 1 failed engine node2 "^decode:0 on node2 ended \(exit code 3\) during benchmark$"
    [[ ! -f "$work/pids/decode_0_r1" ]] || fail "decode_0 was relaunched under restart: never" ;;
esac

# Nothing outlives the launcher: every step it started has ended.
for f in "$work"/pids/*; do
  [[ -f "$f" ]] || continue
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then fail "step $(basename "$f") (pid $pid) still runs after launch ended"; fi
done
echo "PASS: $case: exit $rc, $state${class:+ ($class)}: $reason"

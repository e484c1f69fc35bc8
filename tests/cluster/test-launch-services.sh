#!/usr/bin/env bash
# test-launch-services.sh BASE: a recipe's generic services (srtctl v2.18 `services:`) run as
# srtctl runs them, through real srun steps of the job on the lab. Job 1: the AgentX twin with a
# `before_workers` critical service on the worker's node (its preamble's export reaching the
# command, its env, a log probe: the MI355X UMBP recipe's shape) and an `after_frontend` HTTP
# service on every node; the sweep log shows each ready at its place (before the first worker,
# after the router), the port audit finds the service's port on its step, the job completes and
# nothing of it is left. Job 2: a service whose probe never passes within its timeout_seconds
# fails the job before any worker, failure class "service", naming it and its node.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
t0=$(lab_now)
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/agentic/agg-tp8.yaml:override_tp8_c4"
port=24555  # below the profile's port range: no planned port of the job is near it

# shellcheck disable=SC2016  # expanded by the service's bash
services='[{"name": "umbp", "placement": {"node": "agg"}, "start": "before_workers", "critical": true,
  "inherit_discovery_env": false, "env": {"UMBP_DRAM_USE_HUGEPAGES": "1"},
  "preamble": "export SVC_PREAMBLE=from-the-preamble",
  "command": ["bash", "-c", "echo \"env $SVC_PREAMBLE $UMBP_DRAM_USE_HUGEPAGES\"; sleep 2; echo host memory registered for GPU access; exec sleep 3600"],
  "readiness": {"log": {"pattern": "host memory registered"}, "timeout_seconds": 60, "interval_seconds": 1}},
 {"name": "side", "placement": {"node": "all"},
  "command": ["/usr/bin/python3", "-m", "http.server", "'"$port"'", "--bind", "0.0.0.0"],
  "readiness": {"http": {"port": '"$port"', "path": "/"}, "timeout_seconds": 30, "interval_seconds": 1}}]'
jid=$(launch_helper_submit "$recipe" --set "services=$services")
echo "job $jid: the AgentX twin with two services"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "job $jid never reached the benchmark"; }
plan=$(launch_plan_json "$jid" "$recipe" --set "services=$services")
for node in $(scontrol show hostnames "$(squeue -h -j "$jid" -o %N)"); do launch_port_audit "$jid" "$plan" "$node"; done
result=$(lab_wait_job "$jid" 300) || { launch_show "$jid"; lab_fail "job did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
[[ "$(launch_status "$jid" state)" == completed ]] || { launch_show "$jid"; lab_fail "status.json does not say completed"; }
dir=$(launch_job_dir "$jid")
sweep="$dir/logs/sweep_$jid.log"
line_of() { grep -n -m1 -- "$1" "$sweep" | cut -d: -f1; }
umbp=$(line_of 'services: service:umbp:0 on .* ready (log)')
workers=$(line_of 'started [0-9]* worker steps')
router=$(line_of '^.*router ready: ')
side=$(line_of 'services: service:side:0 on .* ready (http)')
echo "sweep log lines: umbp ready $umbp, workers started $workers, router ready $router, side ready $side"
[[ -n "$umbp" && -n "$workers" && -n "$router" && -n "$side" ]] || { launch_show "$jid"; lab_fail "a service's readiness is missing from $sweep"; }
(( umbp < workers )) || lab_fail "the before_workers service was not ready before the first worker started"
(( router < side )) || lab_fail "the after_frontend service was started before the router was ready"
grep -qx "env from-the-preamble 1" "$dir/logs/service_umbp.out" ||
  lab_fail "the preamble's export or the service's env did not reach its command: $(cat "$dir/logs/service_umbp.out" 2>&1)"
grep -q '"GET / HTTP/1.1" 200' "$dir/logs/service_side.out" || lab_fail "the HTTP service's log shows no probe"
launch_assert_clean "$jid" 10

t1=$(lab_now)
jid=$(launch_helper_submit "$recipe" --set 'services=[{"name": "never", "start": "before_workers", "command": ["sleep", "600"],
  "readiness": {"port": 24556, "timeout_seconds": 3, "interval_seconds": 1}}]')
echo "job $jid: a service that never listens"
launch_expect_failed "$jid" 90 "service:never:0 on" "not ready within 3 s"
node=$(sed -n 's/^service:never:0 on \([^ ]*\) not ready.*/\1/p' <<< "$(launch_status "$jid" reason)")
launch_expect_class "$jid" service "$node"
[[ -z "$(find "$(launch_job_dir "$jid")/logs" -name '*_agg_w*.out')" ]] || lab_fail "a worker was started after the service failed"
launch_assert_clean "$jid" 10
echo "PASS: services ran before the workers and after the router and were stopped with the job; an unready one failed its job in $(lab_elapsed "$t1") s (total $(lab_elapsed "$t0") s)"

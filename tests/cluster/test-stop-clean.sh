#!/usr/bin/env bash
# test-stop-clean.sh --base DIR --port P [--mode multi|netns]... [--spank LINE]... [--plugstack F]
# For each mode (default both),
# start a lab with running jobs, restart it over them, start jobs again, stop it, and check
# from outside lab-stop.sh that no process, network namespace, link or listening port of the
# lab is left. Uses its own base and port, never a shared fixture's. --spank and --plugstack go
# to lab-start.sh.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
(( EUID == 0 )) || { echo "SKIP: the lab needs root" >&2; exit 77; }

base=
port=
modes=()
start_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --mode) modes+=("$2"); shift 2 ;;
    --spank|--plugstack) start_args+=("$1" "$2"); shift 2 ;;
    *) echo "usage: test-stop-clean.sh --base DIR --port P [--mode M]... [--spank L]... [--plugstack F]" >&2; exit 2 ;;
  esac
done
[[ -n "$base" && -n "$port" ]] || { echo "--base and --port are required" >&2; exit 2; }
(( ${#modes[@]} )) || modes=(multi netns)
nodes=3
# Processes of the test's jobs carry this token; nothing else on the machine does.
token="stop-clean-$$-$RANDOM"
trap '"$HERE/lab-stop.sh" --base "$base" --quiet >/dev/null 2>&1 || true' EXIT

job_pids() {
  grep -lszxF -- "SRT_LAB_TEST_TOKEN=$token" /proc/[0-9]*/environ 2>/dev/null \
    | sed 's|^/proc/\([0-9]*\)/environ$|\1|' | while read -r pid; do
        [[ "$pid" != "$$" ]] && lab_alive "$pid" && echo "$pid"
      done
  return 0
}

# start_sleepers: a 3-node batch job whose tasks sleep; returns once every task runs.
start_sleepers() {
  local jid
  jid=$(sbatch --parsable -N"$nodes" -o /dev/null --export="ALL,SRT_LAB_TEST_TOKEN=$token" \
        --wrap 'srun sleep 300')
  for _ in $(seq 1 150); do
    if (( $(job_pids | while read -r pid; do cat "/proc/$pid/comm" 2>/dev/null; done | grep -cx sleep) == nodes )); then
      echo "job $jid running: pids $(job_pids | tr '\n' ' ')"
      return 0
    fi
    sleep 0.1
  done
  lab_fail "job $jid did not start its tasks within 15 s"
}

for mode in "${modes[@]}"; do
  echo "=== $mode"
  "$HERE/lab-start.sh" --base "$base" --port "$port" --mode "$mode" --nodes "$nodes" --timeout 60 \
    "${start_args[@]}"
  # shellcheck disable=SC1091
  source "$base/env.sh"
  start_sleepers

  echo "--- start again over a running job (idempotent start)"
  "$HERE/lab-start.sh" --base "$base" --port "$port" --mode "$mode" --nodes "$nodes" --timeout 60 \
    "${start_args[@]}"
  [[ -z "$(job_pids)" ]] || lab_fail "restart left job processes: $(job_pids | tr '\n' ' ')"
  [[ -z "$(squeue -h -o %i)" ]] || lab_fail "restarted lab still has jobs"
  start_sleepers

  echo "--- stop"
  daemons=$(cat "$base"/run/*.pid | tr '\n' ' ')
  "$HERE/lab-stop.sh" --base "$base" || lab_fail "lab-stop.sh reported leftovers"

  # Checked here independently of lab-stop.sh's own check.
  for pid in $daemons; do
    if lab_alive "$pid"; then lab_fail "daemon $pid still running"; fi
  done
  left=$(grep -lszxF -- "$LAB_MARKER=$base" /proc/[0-9]*/environ 2>/dev/null \
         | sed 's|^/proc/\([0-9]*\)/environ$|\1|' | while read -r pid; do
             lab_alive "$pid" && echo "$pid"
           done || true)
  [[ -z "$left" ]] || lab_fail "processes with the lab's marker left: $left"
  [[ -z "$(job_pids)" ]] || lab_fail "job processes left: $(job_pids | tr '\n' ' ')"
  [[ -z "$(lab_netns_names "$LAB_NETNS_PREFIX")" ]] || lab_fail "namespaces left: $(lab_netns_names "$LAB_NETNS_PREFIX")"
  [[ -z "$(lab_links "$LAB_LINK_PREFIX")" ]] || lab_fail "links left: $(lab_links "$LAB_LINK_PREFIX")"
  listening=$(ss -Hltn | awk '{ n = split($4, a, ":"); print a[n] }')
  for p in $(seq "$port" $(( port + nodes ))); do
    if grep -qx "$p" <<<"$listening"; then lab_fail "port $p still listening"; fi
  done
  echo "PASS: $mode lab stopped with nothing left"
done
"$HERE/lab-stop.sh" --base "$base" --purge --quiet
trap - EXIT

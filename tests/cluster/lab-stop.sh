#!/usr/bin/env bash
# lab-stop.sh: stop the lab started by lab-start.sh in --base DIR, and leave nothing behind.
#
#   lab-stop.sh [--base DIR] [--port P] [--quiet] [--purge]
#
#   --base DIR  the lab's directory (default: $PWD/.lab)
#   --port P    also clean the network objects of port P when DIR/env.sh is gone
#   --purge     delete DIR afterwards (default: keep it, logs included)
#
# Order: cancel every job, "scontrol shutdown" (slurmctld and every slurmd), then TERM and KILL
# what is left BY PID ONLY (pid files, processes carrying the lab's marker variable, processes
# in the lab's network namespaces), then munged, then the namespaces, veths and the bridge.
# Safe to run when nothing is running. Exits non-zero if something of the lab is still there.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

base=$PWD/.lab
port=
quiet=0
purge=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) [[ $# -ge 2 ]] || lab_die "--base needs a value"; base=$2; shift 2 ;;
    --port) [[ $# -ge 2 ]] || lab_die "--port needs a value"; port=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) lab_die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$base" == /* ]] || lab_die "--base must be an absolute path, got '$base'"
[[ $(id -u) -eq 0 ]] || lab_die "must run as root"
say() { (( quiet )) || lab_log "$@"; }
t_start=$(lab_now)

netns_prefix=''
link_prefix=''
lab_trust "$base"  # before anything in it is sourced or removed
if [[ -f "$base/env.sh" ]]; then
  # shellcheck disable=SC1091
  source "$base/env.sh"
  netns_prefix=$LAB_NETNS_PREFIX
  link_prefix=$LAB_LINK_PREFIX
elif [[ -n "$port" ]]; then
  netns_prefix="srtlab$port"
  link_prefix="sl$port-"
fi
export SLURM_CONF="$base/etc/slurm.conf"

pidfile_pids() {
  local f
  for f in "$base"/run/*.pid; do
    [[ -f "$f" && "$f" != */munged.pid ]] && cat "$f"
  done
  return 0
}
netns_pids() {
  local ns
  [[ -n "$netns_prefix" ]] || return 0
  for ns in $(lab_netns_names "$netns_prefix"); do ip netns pids "$ns" 2>/dev/null; done
}
# Everything of the lab except munged, which must outlive the Slurm daemons' shutdown.
lab_pids() {
  local munged pid
  munged=$(cat "$base/run/munged.pid" 2>/dev/null)
  { pidfile_pids; lab_marker_pids "$base"; netns_pids; } | sort -un | while read -r pid; do
    [[ "$pid" != "$munged" ]] && lab_alive "$pid" && echo "$pid"
  done
}

# --- 1. jobs, then the daemons, the polite way ------------------------------------------------
if [[ -f "$SLURM_CONF" ]] && lab_alive "$(cat "$base/run/slurmctld.pid" 2>/dev/null)"; then
  mapfile -t jobs < <(squeue -h -o %i 2>/dev/null)
  if (( ${#jobs[@]} )); then
    say "cancelling ${#jobs[@]} job(s)"
    scancel --quiet --full "${jobs[@]}" 2>/dev/null
    # Bounded: slurmstepd has KillWait (5 s) to end the tasks.
    for _ in $(seq 1 100); do
      [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
      sleep 0.1
    done
  fi
  say "scontrol shutdown"
  scontrol shutdown >/dev/null 2>&1
fi

# --- 2. whatever is left: TERM, then KILL, by PID ---------------------------------------------
mapfile -t live < <(lab_pids)
if (( ${#live[@]} )) && ! lab_wait_gone 5 "${live[@]}"; then
  mapfile -t live < <(lab_pids)
  if (( ${#live[@]} )); then
    say "SIGTERM ${live[*]}"
    kill -TERM "${live[@]}" 2>/dev/null
    if ! lab_wait_gone 5 "${live[@]}"; then
      say "SIGKILL ${live[*]}"
      kill -KILL "${live[@]}" 2>/dev/null
      lab_wait_gone 2 "${live[@]}"
    fi
  fi
fi
munged=$(cat "$base/run/munged.pid" 2>/dev/null)
if lab_alive "$munged"; then
  kill -TERM "$munged" 2>/dev/null
  lab_wait_gone 5 "$munged" || { kill -KILL "$munged" 2>/dev/null; lab_wait_gone 2 "$munged"; }
fi

# --- 3. network objects -------------------------------------------------------------------
# "ip netns del" frees the veth pairs asynchronously; deleting the host end of each veth first
# removes both ends at once.
if [[ -n "$link_prefix" ]]; then
  for link in $(lab_links "$link_prefix"); do
    [[ "$link" == "${link_prefix}br" ]] || ip link del "$link" 2>/dev/null
  done
fi
if [[ -n "$netns_prefix" ]]; then
  for ns in $(lab_netns_names "$netns_prefix"); do ip netns del "$ns" 2>/dev/null; done
fi
if [[ -n "$link_prefix" ]]; then
  for link in $(lab_links "$link_prefix"); do ip link del "$link" 2>/dev/null; done
fi

rm -f "$base"/run/*.pid 2>/dev/null

# --- 4. check ----------------------------------------------------------------------------------
leftover=$(
  lab_pids | sed 's/^/process /'
  lab_alive "$munged" && echo "process $munged (munged)"
  [[ -n "$netns_prefix" ]] && lab_netns_names "$netns_prefix" | sed 's/^/netns /'
  [[ -n "$link_prefix" ]] && lab_links "$link_prefix" | sed 's/^/link /'
)
(( purge )) && [[ -f "$base/env.sh" || ! -e "$base" ]] && rm -rf "$base"
if [[ -n "$leftover" ]]; then
  lab_log "lab in $base NOT fully stopped; left: $(tr '\n' ' ' <<<"$leftover")"
  exit 1
fi
say "lab in $base stopped, $(lab_elapsed "$t_start")s"
exit 0

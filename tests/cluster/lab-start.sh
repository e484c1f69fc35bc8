#!/usr/bin/env bash
# lab-start.sh: start a real multi-node Slurm cluster on this machine, for srt-spank's tests.
#
#   lab-start.sh [--base DIR] [--port P] [--nodes N] [--mode multi|netns] [--prefix NAME]
#                [--cpus N] [--gpus N] [--mem MB] [--subnet A.B.C]
#                [--plugstack FILE|DIR] [--spank "/abs/plugin.so [args]"]... [--timeout S]
#                [--keep-on-failure] [--srt-profile] [--slurmd-timeout S] [--data-network]
#                [--epilog FILE]
#
#   --base DIR      everything of the lab lives here (default: $PWD/.lab); wiped on start
#   --port P        slurmctld port; slurmd ports are P+1 (netns) or P+1..P+N (multi). Default 17817
#   --nodes N       number of nodes (default 3), named PREFIX1..PREFIXN
#   --prefix NAME   node name prefix (default: node)
#   --mode multi    N "slurmd -N nodeK" in the host's namespaces: every node has the host's
#                   hostname and address (catches any use of gethostname())
#   --mode netns    each node in its own network, UTS and mount namespace: own hostname, own IP
#                   on a lab bridge, private /etc/hosts listing all nodes, no default route
#   --cpus N        CPUs per node (default 8), --mem MB memory per node (default 4000)
#   --gpus N        fake GPUs per node (default 8; gres/gpu on symlinks to /dev/null)
#   --subnet A.B.C  netns mode: the lab's /24 (default derived from the port: 10.x.y)
#   --plugstack F   include this plugstack file (or every DIR/*.conf) from the lab's plugstack
#   --spank "..."   add "required /abs/plugin.so args" to the lab's plugstack (repeatable)
#   --timeout S     bound on the wait for all nodes to be idle (default 30)
#   --keep-on-failure  leave a failed lab running for inspection (default: stop it)
#   --srt-profile      also write the lab's srt-spank cluster profile (lab-profile.sh)
#   --slurmd-timeout S seconds without an answer before slurmctld marks a node DOWN (default 60;
#                      the fault tests use a short one to see a dead slurmd within seconds)
#   --data-network     netns mode: a second network, as a site's data rail beside its management
#                      network: every node also gets eth1 on a second bridge (no address on the
#                      host's side: only the nodes reach it) at LAB_DATA_SUBNET.(10+i), named
#                      PREFIXi-data in the lab's /etc/hosts; the node names stay on the first
#                      (management) network, where Slurm talks
#   --epilog FILE      slurm.conf's Epilog: FILE runs (through BASE/etc/epilog, which exports
#                      SRTSLURM_CONFIG=BASE/etc/srt/cluster.yaml and nothing else: slurmd's
#                      own environment, without PATH) as root on every node at every
#                      job's end, as an installed srt-epilog would; its output is
#                      appended to BASE/log/epilog.log
#
# Idempotent: a lab already running in DIR is stopped first. On success every node is idle and
# DIR/env.sh exports SLURM_CONF and LAB_* for clients and tests. Stop with lab-stop.sh --base DIR.
# Needs root (daemons, namespaces). Never uses systemd or cgroups.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

base=$PWD/.lab
port=17817
nodes=3
mode=multi
prefix=node
cpus=8
gpus=8
mem=4000
subnet=
plugstack=
spank=()
timeout=30
keep_on_failure=0
srt_profile=0
slurmd_timeout=60
data_network=0
epilog=

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
need() { [[ $# -ge 2 ]] || lab_die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) need "$@"; base=$2; shift 2 ;;
    --port) need "$@"; port=$2; shift 2 ;;
    --nodes) need "$@"; nodes=$2; shift 2 ;;
    --mode) need "$@"; mode=$2; shift 2 ;;
    --prefix) need "$@"; prefix=$2; shift 2 ;;
    --cpus) need "$@"; cpus=$2; shift 2 ;;
    --gpus) need "$@"; gpus=$2; shift 2 ;;
    --mem) need "$@"; mem=$2; shift 2 ;;
    --subnet) need "$@"; subnet=$2; shift 2 ;;
    --plugstack) need "$@"; plugstack=$2; shift 2 ;;
    --spank) need "$@"; spank+=("$2"); shift 2 ;;
    --timeout) need "$@"; timeout=$2; shift 2 ;;
    --keep-on-failure) keep_on_failure=1; shift ;;
    --srt-profile) srt_profile=1; shift ;;
    --slurmd-timeout) need "$@"; slurmd_timeout=$2; shift 2 ;;
    --data-network) data_network=1; shift ;;
    --epilog) need "$@"; epilog=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) lab_die "unknown argument '$1' (see --help)" ;;
  esac
done

[[ $(id -u) -eq 0 ]] || lab_die "must run as root (daemons, namespaces)"
[[ "$base" == /* ]] || lab_die "--base must be an absolute path, got '$base'"
if ! [[ "$nodes" =~ ^[0-9]+$ ]] || (( nodes < 1 || nodes > 200 )); then
  lab_die "--nodes must be 1..200, got '$nodes'"
fi
if ! [[ "$port" =~ ^[0-9]+$ ]] || (( port < 1024 || port + nodes > 65535 )); then
  lab_die "--port must be a number in 1024..65535-N, got '$port'"
fi
[[ "$mode" == multi || "$mode" == netns ]] || lab_die "--mode must be multi or netns, got '$mode'"
[[ "$prefix" =~ ^[a-z][a-z0-9-]*$ ]] || lab_die "--prefix must be a lowercase name, got '$prefix'"
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || lab_die "--cpus must be a positive number"
[[ "$gpus" =~ ^[0-9]+$ ]] || lab_die "--gpus must be a number"
[[ "$mem" =~ ^[1-9][0-9]*$ ]] || lab_die "--mem must be a positive number (MB)"
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || lab_die "--timeout must be a positive number of seconds"
[[ "$slurmd_timeout" =~ ^[1-9][0-9]*$ ]] || lab_die "--slurmd-timeout must be a positive number of seconds"
# The default subnet follows the port, so two netns labs on different ports never share one.
[[ -n "$subnet" ]] || subnet="10.$(( port / 256 % 256 )).$(( port % 256 ))"
[[ "$subnet" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || lab_die "--subnet must look like A.B.C, got '$subnet'"
# The data network's /24 follows the port too, 128 above the management subnet's second octet.
data_subnet="10.$(( (port / 256 + 128) % 256 )).$(( port % 256 ))"
(( data_network == 0 )) || [[ "$mode" == netns ]] || lab_die "--data-network needs --mode netns"
if [[ -n "$plugstack" ]]; then
  [[ "$plugstack" == /* ]] || plugstack=$PWD/$plugstack
  [[ -e "$plugstack" ]] || lab_die "--plugstack $plugstack does not exist"
fi
for line in "${spank[@]}"; do
  read -r so _ <<<"$line"
  [[ "$so" == /* ]] || lab_die "--spank needs an absolute plugin path, got '$so'"
  [[ -r "$so" ]] || lab_die "--spank plugin $so is not readable"
done
for bin in munged mungekey munge unmunge slurmctld slurmd scontrol sinfo squeue nsenter unshare ip ss; do
  command -v "$bin" >/dev/null || lab_die "$bin not found; run scripts/install-deps.sh"
done

t_start=$(lab_now)
node_names=()
for i in $(seq 1 "$nodes"); do node_names+=("$prefix$i"); done
if (( nodes > 1 )); then hostlist="${prefix}[1-$nodes]"; else hostlist="${prefix}1"; fi
# Names of the lab's network objects. Both follow the port, so labs on other ports never clash;
# link names must fit Linux's 15 characters ("sl65535-n200" does).
netns_prefix="srtlab$port"
link_prefix="sl$port-"
bridge="${link_prefix}br"

# --- 1. a clean base: stop whatever ran there, then wipe it ---------------------------------
lab_trust "$base"
bash "$HERE/lab-stop.sh" --base "$base" --quiet || true
if [[ -d "$base" && -n "$(ls -A "$base")" && ! -f "$base/env.sh" ]]; then
  lab_die "$base is not empty and holds no lab (no env.sh): refusing to wipe it"
fi
lab_fresh_dir "$base"
mkdir -p "$base"/{etc/plugstack.conf.d,state,log,run,dev,munge,spool}
if [[ -n "${epilog:-}" ]]; then
  [[ -x "$epilog" ]] || lab_die "--epilog $epilog is not an executable file"
  # slurmd's own environment (no PATH: the Epilog sets its own), with the lab's profile standing
  # in for the node's /etc/srt/cluster.yaml.
  # shellcheck disable=SC2016  # $@ is the epilog's
  printf '#!/bin/sh\nexport SRTSLURM_CONFIG=%q\nexec %q "$@" >> %q 2>&1\n' "$base/etc/srt/cluster.yaml" \
    "$epilog" "$base/log/epilog.log" > "$base/etc/epilog"
  chmod 755 "$base/etc/epilog"
fi
# Jobs of a non-root user read slurm.conf and plugstack.conf and reach the munge socket.
chmod 755 "$base" "$base"/{etc,etc/plugstack.conf.d,log,run,dev,munge}
for node in "${node_names[@]}"; do
  mkdir -p "$base/spool/$node"   # slurmd does not create SlurmdSpoolDir=.../%n itself
done

if [[ "$mode" == multi ]]; then ctld_addr=127.0.0.1; else ctld_addr="$subnet.1"; fi
host_short=$(hostname -s 2>/dev/null || hostname)
munge_socket="$base/munge/munge.socket"

# env.sh is written first: lab-stop.sh reads it to know what to undo, even after a failed start.
{
  echo "# The lab in $base ($(date -u +%FT%TZ)). Source it to use the lab."
  printf 'export SLURM_CONF=%q\n' "$base/etc/slurm.conf"
  printf 'export LAB_BASE=%q\n' "$base"
  printf 'export LAB_MODE=%q\n' "$mode"
  printf 'export LAB_PORT=%q\n' "$port"
  printf 'export LAB_NODES=%q\n' "$hostlist"
  printf 'export LAB_NODE_COUNT=%q\n' "$nodes"
  printf 'export LAB_NODE_PREFIX=%q\n' "$prefix"
  printf 'export LAB_CPUS_PER_NODE=%q\n' "$cpus"
  printf 'export LAB_GPUS_PER_NODE=%q\n' "$gpus"
  printf 'export LAB_CTLD_ADDR=%q\n' "$ctld_addr"
  printf 'export LAB_HOSTNAME=%q\n' "$host_short"
  printf 'export LAB_MUNGE_SOCKET=%q\n' "$munge_socket"
  printf 'export LAB_PLUGSTACK=%q\n' "$base/etc/plugstack.conf"
  printf 'export LAB_NETNS_PREFIX=%q\n' "$netns_prefix"
  printf 'export LAB_LINK_PREFIX=%q\n' "$link_prefix"
  [[ "$mode" == netns ]] && printf 'export LAB_SUBNET=%q\n' "$subnet"
  (( data_network )) && printf 'export LAB_DATA_SUBNET=%q\n' "$data_subnet"
  for i in $(seq 1 "$nodes"); do
    node=$prefix$i
    if [[ "$mode" == netns ]]; then addr="$subnet.$(( 10 + i ))"; else addr=127.0.0.1; fi
    printf 'export LAB_NODE_ADDR_%s=%q\n' "${node//-/_}" "$addr"
    (( data_network )) && printf 'export LAB_NODE_DATA_ADDR_%s=%q\n' "${node//-/_}" "$data_subnet.$(( 10 + i ))"
  done
} > "$base/env.sh"
chmod 644 "$base/env.sh"

# From here on a failure stops what was started (unless --keep-on-failure) and shows the logs.
on_exit() {
  local rc=$?
  (( rc == 0 )) && return
  local f
  for f in "$base"/log/*.log; do
    [[ -f "$f" ]] || continue
    # Noise: the pmix plugin is installed but libpmix is not; a fresh state directory has no
    # state files to read.
    grep -iE 'error|fatal' "$f" | grep -v -e pmix -e 'MPI:' -e 'state file' -e 'backup state' \
      | tail -n 3 | sed "s|^|  ${f##*/}: |" >&2 || true
  done
  if (( keep_on_failure )); then
    lab_log "start failed; lab left running in $base (--keep-on-failure)"
  else
    lab_log "start failed; stopping what was started (logs stay in $base/log)"
    bash "$HERE/lab-stop.sh" --base "$base" --quiet || true
  fi
}
trap on_exit EXIT

# --- 2. nothing else may own our ports or network names -------------------------------------
# A slurmd that cannot bind its port dies only after it registered, so the node still looks
# idle and launches reach whoever owns the port ("Job credential replayed"). Check up front.
if [[ "$mode" == multi ]]; then ports=$(seq "$port" $(( port + nodes ))); else ports=$port; fi
busy=$(ss -Hltn | awk '{ n = split($4, a, ":"); print a[n] }' | sort -u)
for p in $ports; do
  if grep -qx "$p" <<<"$busy"; then lab_die "TCP port $p is in use; choose another --port"; fi
done
if [[ "$mode" == netns ]]; then
  [[ -z "$(lab_netns_names "$netns_prefix")$(lab_links "$link_prefix")" ]] \
    || lab_die "network objects $netns_prefix-*/$link_prefix* exist: another lab uses port $port"
  host_addrs=$(ip -o addr show)
  if grep -q " inet $subnet\." <<<"$host_addrs"; then
    lab_die "subnet $subnet.0/24 is already on a host interface; choose another --subnet"
  fi
fi

# Daemons get a clean, fixed environment plus the marker lab-stop.sh finds strays by.
daemon_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
  SLURM_CONF="$base/etc/slurm.conf" "$LAB_MARKER=$base")

# --- 3. munge: own key, socket, pid file and log ---------------------------------------------
# munged wants the key 0600 and the socket directory 0755 ("Socket is inaccessible" otherwise).
# --origin: without it munged resolves the hostname, and when that fails slurmctld logs
# "auth_p_get_host: Lookup failed for 0.0.0.0" on every RPC.
mungekey --create --keyfile="$base/munge/munge.key" --bits=1024
chmod 600 "$base/munge/munge.key"
"${daemon_env[@]}" munged --key-file="$base/munge/munge.key" --socket="$munge_socket" \
  --pid-file="$base/run/munged.pid" --log-file="$base/log/munged.log" \
  --seed-file="$base/munge/munged.seed" --origin=127.0.0.1 \
  || lab_die "munged failed to start (a group-writable directory above $base?)"
munge -S "$munge_socket" -n | unmunge -S "$munge_socket" >/dev/null \
  || lab_die "munge self-test failed; see $base/log/munged.log"

# --- 4. configuration --------------------------------------------------------------------
# Fake GPUs: gres/gpu in 22.05 drops file-less GPUs (node INVALID: "gres/gpu count reported
# lower than configured") and rejects regular files ("not a valid character or block device");
# symlinks to /dev/null pass. The index Slurm exports is the file name's trailing number.
for (( g = 0; g < gpus; g++ )); do ln -s /dev/null "$base/dev/gpu$g"; done
gres=
(( gpus > 0 )) && gres="Gres=gpu:$gpus"

{
  cat <<EOF
# Generated by lab-start.sh: mode=$mode nodes=$nodes base=$base
ClusterName=srtlab
SlurmctldHost=${host_short}(${ctld_addr})
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# auth/munge and cred/munge both take the socket from AuthInfo.
AuthInfo=socket=$munge_socket
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/%n
SlurmctldPidFile=$base/run/slurmctld.pid
SlurmdPidFile=$base/run/slurmd-%n.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups and no systemd: track processes through /proc, bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# The default batch_sched_delay holds a new batch job for up to 3 s.
SchedulerParameters=batch_sched_delay=0
MpiDefault=none
# Without it every daemon logs "Configured MailProg is invalid".
MailProg=/bin/true
# Believe the CPUs, memory and GPUs below rather than the 2-core host.
SlurmdParameters=config_overrides
# A node that was down comes back as soon as it registers with a valid configuration.
ReturnToService=2
SlurmdTimeout=$slurmd_timeout
InactiveLimit=0
KillWait=5
MinJobAge=30
PlugStackConfig=$base/etc/plugstack.conf
GresTypes=gpu
EOF
  [[ -z "${epilog:-}" ]] || echo "Epilog=$base/etc/epilog"
  for i in $(seq 1 "$nodes"); do
    if [[ "$mode" == multi ]]; then
      echo "NodeName=$prefix$i NodeHostname=$host_short NodeAddr=127.0.0.1 Port=$(( port + i )) CPUs=$cpus RealMemory=$mem $gres State=UNKNOWN"
    else
      echo "NodeName=$prefix$i NodeHostname=$prefix$i NodeAddr=$subnet.$(( 10 + i )) CPUs=$cpus RealMemory=$mem $gres State=UNKNOWN"
    fi
  done
  echo "PartitionName=lab Nodes=$hostlist Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
} > "$base/etc/slurm.conf"

# The Slurm series (2205, 2411, 2605): what cgroup.conf below depends on.
slurm_version=$(slurmd -V | awk '{ print $2 }')
IFS=. read -r slurm_major slurm_minor _ <<<"$slurm_version"
slurm_series=$(( 10#$slurm_major * 100 + 10#$slurm_minor ))
if (( gpus > 0 )); then
  echo "NodeName=$hostlist Name=gpu File=$base/dev/gpu[0-$(( gpus - 1 ))]" > "$base/etc/gres.conf"
else
  : > "$base/etc/gres.conf"
fi

# cgroup.conf: from 24.05 on (the first series whose cgroup.conf(5) has "disabled"; 23.11's
# lists v1, v2 and autodetect only) slurmd and every slurmstepd initialise a cgroup plugin
# whatever ProctrackType and TaskPlugin say. The lab needs none (it tracks processes through
# /proc and binds nothing), and whether autodetect's pick works depends on the machine: this
# host's cgroup v1 hierarchy does (26.05 warns that cgroup/v1 is deprecated), cgroup/v2 wants
# systemd to hand slurmd a scope (the lab has no systemd), and the first lab of 24.11.5 and
# 26.05.5 in the matrix root filesystems died "Unable to initialize cgroup plugin". So none.
# 22.05 (Debian 12's, the host's) starts without a cgroup.conf and has no "disabled".
if (( slurm_series >= 2405 )); then
  printf '# Generated by lab-start.sh: no systemd here, and the lab needs no cgroups\nCgroupPlugin=disabled\n' \
    > "$base/etc/cgroup.conf"
fi

# plugstack.conf is read again by every srun, sbatch, salloc and slurmstepd (slurmd reads it
# once at start): edits take effect for the next job. A "required" plugin that cannot load
# makes slurmd fail to start, which this script reports.
{
  echo "# Generated by lab-start.sh: required|optional /abs/plugin.so [args], or include GLOB"
  for line in "${spank[@]}"; do echo "required $line"; done
  if [[ -d "$plugstack" ]]; then
    echo "include $plugstack/*.conf"
  elif [[ -n "$plugstack" ]]; then
    echo "include $plugstack"
  fi
  echo "include $base/etc/plugstack.conf.d/*.conf"
} > "$base/etc/plugstack.conf"
chmod 644 "$base"/etc/*
[[ -z "$epilog" ]] || chmod 755 "$base/etc/epilog"

# --- 5. netns mode: a bridge on the host, one namespace per node -----------------------------
if [[ "$mode" == netns ]]; then
  ip link add "$bridge" type bridge
  ip addr add "$subnet.1/24" dev "$bridge"
  ip link set "$bridge" up
  {
    echo "127.0.0.1 localhost"
    echo "$subnet.1 $host_short lab-ctld"
    for i in $(seq 1 "$nodes"); do echo "$subnet.$(( 10 + i )) $prefix$i"; done
    if (( data_network )); then
      for i in $(seq 1 "$nodes"); do echo "$data_subnet.$(( 10 + i )) $prefix$i-data"; done
    fi
  } > "$base/etc/hosts"
  chmod 644 "$base/etc/hosts"
  for i in $(seq 1 "$nodes"); do
    ns="$netns_prefix-$prefix$i"
    veth="${link_prefix}n$i"
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$bridge" up
    ip -n "$ns" addr add "$subnet.$(( 10 + i ))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    # No default route on purpose: a node reaches only the lab subnet.
    if (( data_network )); then
      [[ -n "$(ip link show "${link_prefix}dbr" 2>/dev/null)" ]] || {
        ip link add "${link_prefix}dbr" type bridge
        ip link set "${link_prefix}dbr" up
      }
      ip link add "${link_prefix}d$i" type veth peer name eth1 netns "$ns"
      ip link set "${link_prefix}d$i" master "${link_prefix}dbr" up
      ip -n "$ns" addr add "$data_subnet.$(( 10 + i ))/24" dev eth1
      ip -n "$ns" link set eth1 up
    fi
  done
fi

# --- 6. slurmctld, then one slurmd per node --------------------------------------------------
# -c: start from nothing (the state directory is fresh anyway).
"${daemon_env[@]}" slurmctld -c || lab_die "slurmctld failed to start"
export SLURM_CONF="$base/etc/slurm.conf"
deadline=$(( $(date +%s) + timeout ))
until [[ "$(scontrol ping 2>/dev/null)" == *'is UP'* ]]; do
  (( $(date +%s) < deadline )) || lab_die "slurmctld not answering after ${timeout}s"
  sleep 0.05
done

for node in "${node_names[@]}"; do
  lab_start_slurmd "$base" "$node" || lab_die "slurmd $node failed to start"
done

# --- 7. all nodes idle, every daemon alive ------------------------------------------------------
while :; do
  states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
  n_idle=$(grep -c ' idle$' <<<"$states" || true)
  (( n_idle == nodes )) && break
  if (( $(date +%s) >= deadline )); then
    printf '%s\n' "$states" >&2
    lab_die "nodes not idle after ${timeout}s"
  fi
  sleep 0.05
done
pidfiles=("$base/run/munged.pid" "$base/run/slurmctld.pid")
for node in "${node_names[@]}"; do pidfiles+=("$base/run/slurmd-$node.pid"); done
for pidfile in "${pidfiles[@]}"; do
  [[ -f "$pidfile" ]] || lab_die "missing pid file $pidfile"
  lab_alive "$(cat "$pidfile")" || lab_die "daemon of $pidfile is not running"
done

trap - EXIT
if (( srt_profile )); then
  lab_log "srt-spank profile: $("$(dirname "${BASH_SOURCE[0]}")/lab-profile.sh" "$base")"
fi
lab_log "Slurm $slurm_version lab up: $nodes nodes ($hostlist), $mode mode, port $port, $(lab_elapsed "$t_start")s"
lab_log "use: source $base/env.sh"

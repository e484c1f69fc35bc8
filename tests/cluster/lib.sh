# shellcheck shell=bash
# Shared helpers for the lab scripts and the cluster tests. Source it; it defines functions (and
# LAB_MARKER) only, so sourcing it never changes the caller's options or environment.

# The variable every lab daemon (and every slurmstepd they fork) carries: lab-stop.sh finds
# strays by it, never by process name. Its value is the lab's base directory.
LAB_MARKER=SRT_LAB_DAEMON

lab_log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
lab_die() { lab_log "ERROR: $*"; exit 1; }

lab_now() { date +%s.%N; }
# lab_elapsed START: seconds since START (from lab_now), two decimals.
lab_elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# lab_alive PID: running and not a zombie. A zombie answers kill -0, and on machines whose PID 1
# is not a full init, orphaned daemons are reaped late.
lab_alive() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] && kill -0 "$1" 2>/dev/null || return 1
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }            # the command name may contain spaces and parentheses
  [[ -n "$stat" && "${stat%% *}" != Z ]]
}

# lab_wait_gone SECONDS PID...: wait until none of the PIDs is alive; non-zero on timeout.
lab_wait_gone() {
  local end=$(( $(date +%s%N) + $1 * 1000000000 )) pid any
  shift
  while :; do
    any=0
    for pid in "$@"; do lab_alive "$pid" && { any=1; break; }; done
    (( any == 0 )) && return 0
    (( $(date +%s%N) >= end )) && return 1
    sleep 0.05
  done
}

# lab_marker_pids BASE: PIDs of processes whose environment has SRT_LAB_DAEMON=BASE.
lab_marker_pids() {
  local file pid
  # grep -z reads each environ entry (NUL-terminated) as one line.
  grep -lszxF -- "$LAB_MARKER=$1" /proc/[0-9]*/environ 2>/dev/null | while read -r file; do
    pid=${file#/proc/}
    pid=${pid%/environ}
    [[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] || echo "$pid"
  done
}

# lab_netns_names PREFIX: the network namespaces whose name starts with PREFIX- .
lab_netns_names() {
  ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^$1-" || true
}

# lab_links PREFIX: host network links whose name starts with PREFIX (veth ends, the bridge).
lab_links() {
  ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep -E "^$1" || true
}

# lab_start_slurmd BASE NODE: start NODE's slurmd as lab-start.sh does (netns mode: in the node's
# network namespace with its own hostname and /etc/hosts), with the daemons' clean environment
# and marker. Used by lab-start.sh and by tests that restart a slurmd they killed. slurmd
# daemonizes once initialised; a non-zero status means it died (bad gres.conf, a required SPANK
# plugin that does not load, a port in use).
lab_start_slurmd() {
  local base=$1 node=$2
  (
    # shellcheck disable=SC1091
    source "$base/env.sh"
    daemon_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
      SLURM_CONF="$base/etc/slurm.conf" "$LAB_MARKER=$base")
    if [[ "$LAB_MODE" == multi ]]; then
      exec "${daemon_env[@]}" slurmd -N "$node"
    fi
    # Not "ip netns exec": it remounts /sys, /sys/fs/cgroup disappears, and slurmd (which
    # always initialises a cgroup plugin) dies. nsenter --net switches only the network;
    # unshare adds the node's own hostname and a private /etc/hosts (and a mount namespace of
    # the node's own, which a test may use to change what one node sees).
    # shellcheck disable=SC2016  # $1 and $2 are sh's, not ours
    exec "${daemon_env[@]}" nsenter --net="/run/netns/$LAB_NETNS_PREFIX-$node" \
      unshare --uts --mount --propagation private \
      sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts && exec slurmd -N "$1"' \
      sh "$node" "$base/etc/hosts"
  )
}

# lab_trust BASE: BASE and BASE/env.sh are each absent or root's own and writable by root alone,
# and no directory above BASE lets anyone but root (or the sudo user who runs the lab) replace
# it; or die. Lab bases are in /tmp by default, where any user can make a path first, and root
# sources BASE/env.sh and wipes BASE: a planted env.sh would run as root. sshd's StrictModes
# checks a user's files the same way.
lab_trust() {
  local base=$1 p uid perm
  for p in "$base" "$base/env.sh"; do
    [[ -e "$p" || -L "$p" ]] || continue
    [[ ! -L "$p" ]] || lab_die "$p is a symbolic link: a lab base and its env.sh must be root's own (remove it, or give another --base)"
    read -r uid perm < <(stat -c '%u %a' "$p")
    (( uid == 0 )) || lab_die "$p belongs to uid $uid, not root: refusing to use it as root (remove it, or give another --base)"
    (( (8#$perm & 8#022) == 0 )) || lab_die "$p is writable by group or others (mode $perm): refusing to use it as root"
  done
  # Whoever may rename an entry of a directory above BASE could swap BASE for their own after
  # these checks: its owner, or anyone who can write to it unless it is sticky (/tmp is).
  p=$base
  while [[ "$p" != / && "$p" != . ]]; do
    p=$(dirname "$p")
    [[ -e "$p" ]] || continue
    for uid_perm in "$(stat -c '%u %a' "$p")" "$(stat -L -c '%u %a' "$p")"; do
      read -r uid perm <<< "$uid_perm"
      (( uid == 0 || uid == ${SUDO_UID:-0} )) ||
        lab_die "$p (above the lab base $base) belongs to uid $uid: they could replace the base; give a --base under root's directories"
      (( (8#$perm & 8#022) == 0 || (8#$perm & 8#1000) )) ||
        lab_die "$p (above the lab base $base) is writable by group or others without the sticky bit (mode $perm): give another --base"
    done
  done
}

# lab_fresh_dir DIR: DIR removed and made again, empty, root's, 0755. mkdir, not mkdir -p, for
# DIR itself: it fails if anyone made the path again after the rm (in /tmp, anyone can).
lab_fresh_dir() {
  rm -rf "$1"
  mkdir -p "$(dirname "$1")"
  mkdir -m 755 "$1" || lab_die "could not make $1 afresh: something made it again after it was removed"
}

# lab_use BASE: source BASE/env.sh (SLURM_CONF and LAB_*) into the caller, or die.
lab_use() {
  local base=${1:-${LAB_BASE:-}}
  [[ -n "$base" ]] || lab_die "no lab given: pass its base directory or set LAB_BASE"
  [[ -r "$base/env.sh" ]] || lab_die "$base/env.sh not found: is a lab running there?"
  lab_trust "$base"
  # shellcheck disable=SC1091
  source "$base/env.sh"
}

# lab_as_user USER CMD...: run CMD as USER with the lab's client environment.
lab_as_user() {
  local user=$1
  shift
  runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"
}

# lab_job_field JOBID FIELD: one Key=Value field of "scontrol show job" (empty if gone).
lab_job_field() {
  # sed -n 1p, not head -n1: head quits after a line, and under pipefail the writer it leaves
  # to die of SIGPIPE fails the pipeline.
  scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | sed -n 1p
}

# lab_wait_job JOBID TIMEOUT: poll squeue (10 Hz; sbatch --wait polls far slower) until the job
# has left the queue. Prints "JobId=N JobState=S ExitCode=A:B". Returns 0 for COMPLETED 0:0,
# 1 for any other end, 124 on timeout.
lab_wait_job() {
  local jid=$1 timeout=${2:-60} end state exit_code
  end=$(( $(date +%s%N) + timeout * 1000000000 ))
  while :; do
    state=$(squeue -h -j "$jid" -t all -o %T 2>/dev/null | sed -n 1p)
    # An empty answer is a job aged out of the queue or a failed RPC: ask once more.
    [[ -n "$state" ]] || state=$(lab_job_field "$jid" JobState)
    case "$state" in
      PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT) ;;
      *) break ;;
    esac
    if (( $(date +%s%N) >= end )); then
      echo "JobId=$jid JobState=${state:-UNKNOWN} ExitCode=none (timeout after ${timeout}s)"
      return 124
    fi
    sleep 0.1
  done
  state=$(lab_job_field "$jid" JobState)
  exit_code=$(lab_job_field "$jid" ExitCode)
  echo "JobId=$jid JobState=${state:-UNKNOWN} ExitCode=${exit_code:-unknown}"
  [[ "$state" == COMPLETED && "$exit_code" == 0:0 ]]
}

# lab_job_pids JOBID: live processes of this lab's job JOBID, on any node: SLURM_JOB_ID=JOBID and
# this lab's SLURM_CONF in their environment (Slurm sets both in every task; job ids repeat
# across labs running side by side on this machine, so the id alone would find other labs' jobs).
lab_job_pids() {
  local file pid
  grep -lszxF -- "SLURM_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null | while read -r file; do
    grep -qszxF -- "SLURM_CONF=$SLURM_CONF" "$file" || continue
    pid=${file#/proc/}
    pid=${pid%/environ}
    [[ "$pid" == "$$" || "$pid" == "$BASHPID" ]] && continue
    lab_alive "$pid" && echo "$pid"
  done
  return 0
}

# lab_assert_job_clean JOBID SECONDS: nothing of the lab's job JOBID may run anywhere once it
# ended (a bounded wait for what Slurm is still reaping); lists what is left and fails otherwise.
lab_assert_job_clean() {
  local jid=$1 end=$(( $(date +%s) + $2 )) left pid
  while :; do
    left=$(lab_job_pids "$jid" | tr '\n' ' ')
    [[ -z "$left" ]] && { echo "nothing of job $jid is left on any node"; return 0; }
    (( $(date +%s) < end )) || break
    sleep 0.2
  done
  for pid in $left; do echo "  left: $pid $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" >&2; done
  lab_fail "processes of job $jid left after it ended: $left"
}

# --- for the test scripts -------------------------------------------------------------------
# A test script takes the lab's base directory as its first argument (or LAB_BASE), prints what
# it checks, and exits 0 (pass), 1 (fail) or 77 (skipped: CTest's SKIP_RETURN_CODE).

lab_fail() { echo "FAIL: $*" >&2; exit 1; }

# lab_recipe_images SRC: the container images the lab recipes name (model.container), one a line:
# the names the lab's podman and docker images are tagged with, as a site pre-loads an image.
lab_recipe_images() {
  grep -rhoE '^ *container: *"[^"]+"' "$1/recipes/lab" | sed -E 's/^ *container: *"//; s/"$//' | sort -u
}

# lab_test_init BASE: skip unless root, then source the lab's env.sh.
lab_test_init() {
  (( EUID == 0 )) || { echo "SKIP: the lab needs root" >&2; exit 77; }
  lab_use "${1:-${LAB_BASE:-}}"
}

# lab_revive_slurmds: start again any slurmd of the lab that is no longer running, and say so on
# stderr (with its log, and the core if one was left). Debian 12's slurmd 22.05.8 was seen to die
# of a corrupt heap while launching a job's steps (SIGSEGV in malloc under nodelist_find, no srt
# code in the process but the loader, which does nothing in slurmd; cluster.fault.setsid-escape,
# 2026-12-04). The test running then fails; without this, every later test on that lab would
# fail too, at a node that is down for a reason that is not theirs, and so would the failed
# test's second run. A test that kills a slurmd itself restarts it (test-fault-slurmd-killed.sh).
lab_revive_slurmds() {
  local pidfile node pid state core=
  compgen -G "$LAB_BASE/log/core*" >/dev/null && core=", a core dump in $LAB_BASE/log"
  for pidfile in "$LAB_BASE"/run/slurmd-*.pid; do
    [[ -e "$pidfile" ]] || continue
    node=${pidfile##*/slurmd-}
    node=${node%.pid}
    pid=$(cat "$pidfile" 2>/dev/null) || pid=
    lab_alive "$pid" && continue
    echo "lab: slurmd of $node (pid ${pid:-?}) is not running: started again (its log: $LAB_BASE/log/slurmd-$node.log$core)" >&2
    lab_start_slurmd "$LAB_BASE" "$node" || lab_fail "slurmd of $node did not start again"
    # registered and given back by slurmctld (ReturnToService=2)
    state=$(lab_wait_node_state "$node" 'idle|planned|mixed|allocated' 60) \
      || lab_fail "$node is $state 60 s after its slurmd started again"
  done
}

# lab_wait_node_state NODE STATES SECONDS: wait (bounded) until sinfo gives NODE one of STATES
# (|-separated, e.g. idle|planned); on timeout, prints the state it has and returns non-zero.
lab_wait_node_state() {
  local node=$1 states=$2 end=$(( $(date +%s%N) + $3 * 1000000000 )) state
  while :; do
    state=$(sinfo -h -n "$node" -o '%T')
    [[ "$state" == @($states) ]] && return 0
    (( $(date +%s%N) < end )) || { echo "$state"; return 1; }
    sleep 0.1
  done
}

# lab_scratch NAME: a fresh directory on the lab's (shared) filesystem for one test's files.
lab_scratch() {
  local dir="$LAB_BASE/work/$1"
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "$dir"
}

# lab_unusable_nodes: the nodes (with their state) Slurm would not give a new job: drained,
# down, failing, unknown, not responding. A usable node is idle, mixed, allocated, completing or,
# from Slurm 24.11 on, planned (an idle node the backfill scheduler has set aside for a pending
# job; sinfo keeps showing it until the next backfill cycle, after the job already started).
lab_unusable_nodes() {
  sinfo -h -N -o '%N %T' | grep -vE ' (idle|mixed|allocated|completing|planned)$' || true
}

# lab_expect_refused NAME OUTFILE TEXT COMMAND...: COMMAND (sbatch, salloc, srun) must be refused
# at submit time: a non-zero exit within 30 s (not the timeout's 124), TEXT in its output (kept in
# OUTFILE), and nothing queued.
lab_expect_refused() {
  local name=$1 out=$2 text=$3 rc=0
  shift 3
  timeout 30 "$@" > "$out" 2>&1 || rc=$?
  cat "$out"
  (( rc != 0 && rc != 124 )) || lab_fail "$name: exit $rc, expected a refusal"
  grep -qF -- "$text" "$out" || lab_fail "$name: message lacks '$text'"
  [[ -z "$(squeue -h)" ]] || lab_fail "$name: something was queued: $(squeue -h)"
  echo "ok: $name refused (exit $rc)"
}

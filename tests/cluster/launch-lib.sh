# shellcheck shell=bash
# Helpers for the srt-helper launch tests (test-launch-*.sh). They need SRT_HELPER (the build's
# srt-helper) and SRT_JOB (the build's srt-job). Every test starts the same way:
#   set -euo pipefail
#   # shellcheck source=launch-lib.sh
#   source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
#   launch_test_init "${1:-}"
# and keeps the id of the job it submits in `jid`, which is cancelled whatever happens.

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The source tree (recipes, stand-ins, tools), for the tests that source this file.
export LAUNCH_SRC
LAUNCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# launch_test_init BASE: skip unless root, read the lab's env.sh (lab_test_init), start again a
# slurmd that died before this test (lab_revive_slurmds), and make sure the test leaves no job
# behind: the job in `jid` is cancelled when the test exits, however.
launch_test_init() {
  lab_test_init "${1:-}"
  lab_revive_slurmds
  jid=
  trap launch_cancel_job EXIT
}
launch_cancel_job() { [[ -n "${jid:-}" ]] && scancel "$jid" 2>/dev/null; true; }

# launch_submit RECIPE [SBATCH ARGS...]: submit RECIPE with srt-job on the lab; prints the job id.
# python3 in the job is Debian's (BASE/bin first in PATH, see lab-profile.sh) and the launcher
# reads the lab's profile (the one the plugin's plugstack line names).
# --exclusive: the profile says node_sharing: exclusive, and two jobs on one node would collide
# on every port (and one job's health probes would find the other's workers); the launcher
# refuses a job without it. LAUNCH_SHARED=1 leaves it out (shared-mode tests).
launch_submit() {
  local recipe=$1 nodes exclusive=--exclusive
  shift
  [[ "${LAUNCH_SHARED:-}" == 1 ]] && exclusive=
  mkdir -p "$LAB_BASE/work"
  nodes=$("$SRT_HELPER" nodes --profile "$LAB_BASE/etc/srt/cluster.yaml" "$recipe")
  PATH="$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$LAB_BASE/etc/srt/cluster.yaml" \
    sbatch --parsable ${exclusive:+"$exclusive"} --srt-recipe="$recipe" -N"$nodes" -o "$LAB_BASE/work/launch-%j.out" "$@" "$SRT_JOB"
}

# launch_helper_submit RECIPE [SUBMIT OPTIONS...]: `srt-helper submit` of RECIPE on the lab, with
# the options srtctl users pass (--set, --stall-timeout, ...), --exclusive and the output in
# work/launch-%j.out; prints the job id. The caller's environment reaches the job (sbatch exports it).
launch_helper_submit() {
  local recipe=$1 out id
  shift
  mkdir -p "$LAB_BASE/work"
  out=$(PATH="$LAB_BASE/bin:$PATH" "$SRT_HELPER" submit "$recipe" --profile "$LAB_BASE/etc/srt/cluster.yaml" "$@"           -- --exclusive -o "$LAB_BASE/work/launch-%j.out" 2>&1) || { echo "$out" >&2; lab_fail "srt-helper submit refused the job"; }
  id=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<< "$out")
  [[ -n "$id" ]] || { echo "$out" >&2; lab_fail "no job id from srt-helper submit"; }
  echo "$id"
}

# launch_job_dir JOBID: where the launcher writes status.json and logs/ (results_root/JOBID).
launch_job_dir() { echo "$LAB_BASE/results/$1"; }

# launch_status JOBID FIELD: one top-level field of status.json ("" when absent).
launch_status() {
  /usr/bin/python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))
except Exception: print("")' "$(launch_job_dir "$1")/status.json" "$2"
}

# launch_wait_state JOBID STATE TIMEOUT: wait until status.json says the launcher entered STATE
# (it records every state in timings_seconds). Non-zero on timeout or if the job ended first.
launch_wait_state() {
  local jid=$1 want=$2 end=$(( $(date +%s) + $3 ))
  while (( $(date +%s) < end )); do
    if /usr/bin/python3 -c 'import json,sys
t = json.load(open(sys.argv[1])).get("timings_seconds", {})
sys.exit(0 if sys.argv[2] in t else 1)' "$(launch_job_dir "$jid")/status.json" "$want" 2>/dev/null; then
      return 0
    fi
    [[ -n "$(squeue -h -j "$jid" 2>/dev/null)" ]] || return 1
    sleep 0.1
  done
  return 1
}

# launch_job_pids JOBID: the job's live processes on any node of this lab (lib.sh's
# lab_job_pids: job ids restart at 1 in every lab, so SLURM_CONF must match too).
launch_job_pids() { lab_job_pids "$1"; }

# launch_step_pid JOBID STEP_NAME: the main process of the job's step STEP_NAME (srun
# --job-name, e.g. decode_0, router): the python3 carrying SLURM_JOB_NAME=STEP_NAME whose parent
# is not a python3 (an ATOM server's engine cores are its python3 children). Non-zero if none.
launch_step_pid() {
  local pid parent
  for pid in $(launch_job_pids "$1"); do
    grep -qszxF "SLURM_JOB_NAME=$2" "/proc/$pid/environ" || continue
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == python3 ]] || continue
    parent=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null) || continue
    [[ "$(cat "/proc/$parent/comm" 2>/dev/null)" == python3 ]] && continue
    echo "$pid"
    return 0
  done
  return 1
}

# launch_assert_clean JOBID SECONDS: nothing of the job may run after it ended (lib.sh).
launch_assert_clean() { lab_assert_job_clean "$1" "$2"; }

# launch_plan_json JOBID RECIPE [PLAN OPTIONS...]: the job's Plan as the plugin made it (the lab's
# profile, the job's nodes and id; the --set options it was submitted with) in
# work/plan-JOBID.json; prints the file's path.
launch_plan_json() {
  local plan="$LAB_BASE/work/plan-$1.json" jid=$1 recipe=$2
  shift 2
  "$SRT_HELPER" plan "$recipe" --profile "$LAB_BASE/etc/srt/cluster.yaml" --nodelist "$(squeue -h -j "$jid" -o %N)" \
    --job-id "$jid" --json "$@" > "$plan"
  echo "$plan"
}

# launch_port_audit JOBID PLAN NODE [AUDIT ARGS...]: the listening-port audit
# (tests/tools/port_audit.py) of the job's processes on NODE against PLAN, inside the node's
# network namespace (its sockets are only visible from there); a mismatch fails the test.
launch_port_audit() {
  local jid=$1 plan=$2 node=$3
  shift 3
  nsenter --net="/run/netns/$LAB_NETNS_PREFIX-$node" /usr/bin/python3 "$LAUNCH_SRC/tests/tools/port_audit.py" \
    --plan "$plan" --node "$node" --marker 'SLURM_JOB_ID={job_id}' --marker 'SLURM_JOB_NAME={step_name}' \
    --planned-address "$@" \
    || { launch_show "$jid"; lab_fail "port audit on $node"; }
}

# launch_show JOBID: the job's output and status.json, for a failing test's log.
launch_show() {
  echo "--- job $1 output"
  cat "$LAB_BASE/work/launch-$1.out" 2>/dev/null || true
  echo "--- status.json"
  cat "$(launch_job_dir "$1")/status.json" 2>/dev/null || true
}

# launch_expect_class JOBID CLASS [NODE...]: status.json's failure_class is CLASS (the table in
# core/launch/failure_class.cpp) and its failure_nodes are exactly NODE... (none given: not checked).
launch_expect_class() {
  local jid=$1 want=$2 got nodes
  shift 2
  got=$(launch_status "$jid" failure_class)
  nodes=$(/usr/bin/python3 -c 'import json,sys
print(" ".join(json.load(open(sys.argv[1])).get("failure_nodes", [])))' "$(launch_job_dir "$jid")/status.json")
  echo "failure_class: $got; failure_nodes: ${nodes:-none}"
  [[ "$got" == "$want" ]] || { launch_show "$jid"; lab_fail "failure_class is '$got', expected '$want'"; }
  if (( $# > 0 )); then
    [[ "$nodes" == "$*" ]] || { launch_show "$jid"; lab_fail "failure_nodes are '$nodes', expected '$*'"; }
  fi
}

# launch_expect_failed JOBID SECONDS TEXT...: the job must end FAILED within SECONDS (from now),
# and status.json must say failed with every TEXT in its reason; prints what it saw.
# launch_expect_reason_line JOBID ROLE...: status.json's reason is one line a person reads: under
# 300 characters, each ROLE named once ("ROLE on "), the job's log folder named once.
launch_expect_reason_line() {
  local jid=$1 reason role n
  shift
  reason=$(launch_status "$jid" reason)
  echo "reason (${#reason} characters): $reason"
  (( ${#reason} < 300 )) || lab_fail "the reason has ${#reason} characters, 300 at most"
  [[ "$reason" != *$'\n'* ]] || lab_fail "the reason spans several lines"
  for role in "$@"; do
    n=$(grep -o "$role on " <<<"$reason" | wc -l)
    (( n == 1 )) || lab_fail "the reason names '$role' $n times, not once"
  done
  n=$(grep -oF "$(launch_job_dir "$jid")/logs" <<<"$reason" | wc -l)
  (( n == 1 )) || lab_fail "the reason names the log folder $n times, not once"
}

launch_expect_failed() {
  local jid=$1 seconds=$2 result state reason text
  shift 2
  result=$(lab_wait_job "$jid" "$seconds") && { launch_show "$jid"; lab_fail "job $jid completed: $result"; }
  echo "$result"
  [[ "$result" == *"JobState=FAILED"* ]] || { launch_show "$jid"; lab_fail "expected FAILED: $result"; }
  state=$(launch_status "$jid" state)
  reason=$(launch_status "$jid" reason)
  echo "status.json: $state: $reason"
  [[ "$state" == failed ]] || { launch_show "$jid"; lab_fail "status.json says '$state', not failed"; }
  for text in "$@"; do
    [[ "$reason" == *"$text"* ]] || { launch_show "$jid"; lab_fail "status.json's reason lacks '$text'"; }
  done
}

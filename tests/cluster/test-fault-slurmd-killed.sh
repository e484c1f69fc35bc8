#!/usr/bin/env bash
# test-fault-slurmd-killed.sh BASE: node2's slurmd is killed (SIGKILL) while the lab twin's
# benchmark runs (node2 serves the decode worker). What Slurm does, and what the test holds:
#  - running steps do not need slurmd: node2's worker keeps serving until slurmctld, after
#    SlurmdTimeout (10 s in this lab) without an answer, marks node2 DOWN ("Not responding")
#    and ends the job (NODE_FAIL). That DOWN is slurmctld's verdict on a dead daemon, not the
#    plugin draining anything;
#  - the job ends non-zero; status.json and the console say "node failure" and name node2 and
#    its step (the launcher asks Slurm, whether slurmctld's TERM or the dead step reaches it
#    first); the results of the concurrencies that finished and every log are kept;
#  - node1 and node3 have nothing of the job left once it ended. node2's slurmstepd cannot be
#    told (its slurmd is gone), so its worker may outlive the job until slurmd comes back;
#  - slurmd restarted on node2: it registers, slurmctld ends what is left of the job there,
#    node2 returns to idle (ReturnToService=2), and nothing with the job's id is left anywhere.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
node=node2
restart_slurmd() {
  lab_alive "$(cat "$LAB_BASE/run/slurmd-$node.pid" 2>/dev/null)" || lab_start_slurmd "$LAB_BASE" "$node"
}
cleanup() {
  launch_cancel_job
  restart_slurmd || true
}
trap cleanup EXIT
node_of() { local ns; ns=$(ip netns identify "$1" 2>/dev/null); echo "${ns#"$LAB_NETNS_PREFIX"-}"; }
node_state() { sinfo -h -n "$1" -o '%T'; }
node_reason() { scontrol show node "$1" | sed -n 's/^ *Reason=//p'; }

# Slow tokens: the sweep still runs when slurmctld gives up on node2.
jid=$(SRT_STANDIN_TOKEN_MS=300 launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" -w node1,node2)
echo "job $jid"
launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "never reached the benchmark"; }
slurmd_pid=$(cat "$LAB_BASE/run/slurmd-$node.pid")
kill -KILL "$slurmd_pid"
lab_wait_gone 5 "$slurmd_pid" || lab_fail "slurmd $slurmd_pid of $node did not die"
t0=$(lab_now)
echo "killed slurmd of $node (pid $slurmd_pid) during the benchmark"

result=$(lab_wait_job "$jid" 120) && { launch_show "$jid"; lab_fail "job $jid completed: $result"; }
echo "$result, $(lab_elapsed "$t0") s after the kill"
[[ "$result" == *"JobState=COMPLETED"* || "$result" == *"ExitCode=none"* ]] && { launch_show "$jid"; lab_fail "$result"; }
echo "$node: $(node_state "$node") ($(node_reason "$node"))"
[[ "$(node_state "$node")" == down* ]] || lab_fail "$node is $(node_state "$node"), expected down (slurmctld: not responding)"
echo "status.json: $(launch_status "$jid" state): $(launch_status "$jid" reason)"
# Slurm's TERM to the batch step and the dead step on node2 race: whichever the launcher sees
# first, it asks Slurm, and the reason is the node failure with the node and its steps.
reason=$(launch_status "$jid" reason)
[[ "$(launch_status "$jid" state)" == failed && "$reason" == "node failure: "* && "$reason" == *"decode_0 on $node"* ]] \
  || { launch_show "$jid"; lab_fail "status.json does not say node failure naming decode_0 on $node: $reason"; }
launch_expect_class "$jid" node "$node"
grep -F "node failure: Slurm ended the job" "$LAB_BASE/work/launch-$jid.out" >/dev/null \
  || { launch_show "$jid"; lab_fail "the job's console does not say node failure"; }
grep -F "DUE TO NODE FAILURE" "$LAB_BASE/work/launch-$jid.out" \
  || { launch_show "$jid"; lab_fail "the job's output lacks Slurm's node-failure line"; }
dir=$(launch_job_dir "$jid")
results=$(find "$dir/fixed-seq" -name '*.json' 2>/dev/null | wc -l)
echo "kept: $results finished result(s), $(find "$dir/logs" -type f | wc -l) log files"
(( results >= 1 )) || lab_fail "no finished result kept in $dir/fixed-seq"
[[ -s "$dir/logs/sweep_$jid.log" ]] || lab_fail "launcher log not kept in $dir/logs"
compgen -G "$dir/logs/*_decode_w0.out" >/dev/null || lab_fail "decode log not kept in $dir/logs"

# The nodes whose slurmd lives: nothing of the job. node2: whatever its stepd still runs.
left_elsewhere=
for _ in $(seq 1 100); do
  left_elsewhere=
  on_node2=
  for pid in $(lab_job_pids "$jid"); do
    if [[ "$(node_of "$pid")" == "$node" ]]; then on_node2+="$pid "; else left_elsewhere+="$pid "; fi
  done
  [[ -z "$left_elsewhere" ]] && break
  sleep 0.1
done
[[ -z "$left_elsewhere" ]] || lab_fail "processes of job $jid left on live nodes: $left_elsewhere"
echo "node1, node3: nothing of job $jid left; $node (slurmd dead): $(wc -w <<<"$on_node2") process(es)"

lab_start_slurmd "$LAB_BASE" "$node" || lab_fail "slurmd of $node did not restart"
t1=$(lab_now)
state=$(lab_wait_node_state "$node" 'idle|planned' 60) || lab_fail "$node is $state 60 s after slurmd restarted"
echo "$node idle again $(lab_elapsed "$t1") s after slurmd restarted"
lab_assert_job_clean "$jid" 30
bad=$(lab_unusable_nodes)
[[ -z "$bad" ]] || lab_fail "nodes left unusable: $bad"
jid=
echo "PASS: a dead slurmd fails the job (node down by slurmctld, back after restart), results and logs kept, nothing left"

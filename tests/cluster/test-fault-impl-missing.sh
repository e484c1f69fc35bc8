#!/usr/bin/env bash
# test-fault-impl-missing.sh BASE: the plugin's implementation library (impl=PATH on its
# plugstack line) is missing on node2 only. Jobs without --srt-recipe still run there; an srt
# job whose steps reach node2 fails with a reason on the job's output that names node2 and the
# path; the launcher records the failure (status.json, logs kept); nothing of the job is left
# and no node is drained.
# How the file goes missing on one node only: every netns node's slurmd runs in a mount
# namespace of its own (lab_start_slurmd), and each slurmstepd it forks inherits it. An empty
# tmpfs mounted over the library's directory in node2's namespace hides it there, and only there
# (the submit host and the other nodes keep seeing it), as a node without the package would.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=launch-lib.sh
source "$HERE/launch-lib.sh"
launch_test_init "${1:-}"
work=$(lab_scratch fault-impl-missing)
impl_dir="$LAB_BASE/lib/srt"
impl="$impl_dir/srt_spank_impl.so"
# What a slurmstepd loads: the node side's library, beside impl= (the submit side's).
node_impl="$impl_dir/srt_spank_node.so"
node=node2
slurmd_pid=$(cat "$LAB_BASE/run/slurmd-$node.pid")
lab_alive "$slurmd_pid" || lab_fail "slurmd of $node is not running"
in_node() { nsenter -t "$slurmd_pid" -m "$@"; }
hidden=0
cleanup() {
  launch_cancel_job
  (( hidden )) && in_node umount "$impl_dir"
  true
}
trap cleanup EXIT

[[ -e "$impl" && -e "$node_impl" ]] || lab_fail "$impl or $node_impl does not exist: the fixture links them (cluster.fault.impl)"
in_node mount -t tmpfs -o size=64k,mode=755 srt-fault-no-impl "$impl_dir"
hidden=1
in_node test ! -e "$impl" || lab_fail "the mount did not hide $impl on $node"
nsenter -t "$(cat "$LAB_BASE/run/slurmd-node1.pid")" -m test -e "$impl" || lab_fail "$impl vanished on node1 too"
[[ -e "$impl" ]] || lab_fail "$impl vanished on the submit host too"
echo "$impl: hidden on $node only"

# 1. A job without --srt-recipe on every node, node2 included: the loader never needs the library.
jid=$(sbatch --parsable -N3 -o "$work/plain-%j.out" --wrap 'srun -N3 -l hostname')
result=$(lab_wait_job "$jid" 60) || { cat "$work/plain-$jid.out"; lab_fail "plain job: $result"; }
grep -q ": $node\$" "$work/plain-$jid.out" || lab_fail "plain job did not run on $node"
echo "ok: a job without --srt-recipe ran on $node: $result"

# 2. An srt job whose step spans node1 and node2: the batch step (node1) runs, the step fails.
recipe="$LAUNCH_SRC/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
jid=$(sbatch --parsable -w node1,node2 --srt-recipe="$recipe" -o "$work/srt-%j.out" --wrap 'srun -N2 true')
result=$(lab_wait_job "$jid" 60) && { cat "$work/srt-$jid.out"; lab_fail "srt job completed: $result"; }
echo "$result"
cat "$work/srt-$jid.out"
reason=$(grep -F "srt: this job cannot run: node $node " "$work/srt-$jid.out" | grep -F "$node_impl" || true)
[[ -n "$reason" ]] || lab_fail "no line naming $node and $node_impl on the job's output"
echo "ok: the job's output says: $reason"

# 3. The launcher (srt-job): its first step on node2 (preflight's probe, or the decode worker)
# fails at once.
jid=$(launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" -w node1,node2)
result=$(lab_wait_job "$jid" 120) && { launch_show "$jid"; lab_fail "launch job completed: $result"; }
echo "$result"
state=$(launch_status "$jid" state)
status_reason=$(launch_status "$jid" reason)
echo "status.json: $state: $status_reason"
[[ "$state" == failed && "$status_reason" == *"$node"* ]] || { launch_show "$jid"; lab_fail "wrong status"; }
dir=$(launch_job_dir "$jid")
# The loader's line, on the job's output (a worker's log tail) or in the failed step's log that
# status.json points to (preflight's probe output, kept in the job's logs).
where=
for file in "$LAB_BASE/work/launch-$jid.out" "$dir"/logs/"$node"_*.out; do
  [[ -f "$file" ]] || continue
  # Not grep -q: it would quit at the first match and the first grep could die of SIGPIPE.
  if grep -F "srt: this job cannot run: node $node" "$file" | grep -F "$node_impl" >/dev/null; then where=$file; break; fi
done
[[ -n "$where" ]] || { launch_show "$jid"; lab_fail "neither the job's output nor $node's logs carry the reason"; }
[[ "$where" == *"/launch-$jid.out" || "$status_reason" == *"${where##*/}"* ]] \
  || lab_fail "the reason is in $where, which status.json does not name"
echo "the reason (node and path) is in $where"
[[ -s "$dir/logs.tar.gz" && -s "$dir/logs/sweep_$jid.log" ]] || lab_fail "logs not kept in $dir"
lab_assert_job_clean "$jid" 15
echo "ok: launch job failed with the reason; logs kept in $dir"

# The admin's side: slurmd's log says it too, and no node was drained or downed.
grep -F "$node_impl" "$LAB_BASE/log/slurmd-$node.log" | tail -n 1
bad=$(lab_unusable_nodes)
[[ -z "$bad" ]] || lab_fail "nodes left unusable: $bad"
in_node umount "$impl_dir"
hidden=0
sinfo -N
echo "PASS: the library missing on $node fails only srt jobs there, with node and path, and drains nothing"

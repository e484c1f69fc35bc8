#!/usr/bin/env bash
# test-batch-env.sh BASE: "sbatch -N<all> --wrap 'srun -l env'" ends COMPLETED with ExitCode
# 0:0, and every task reports its own SLURM_NODEID and SLURMD_NODENAME.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
work=$(lab_scratch batch-env)
cd "$work"

n=$LAB_NODE_COUNT
jid=$(sbatch --parsable -N"$n" -o "$work/job-%j.out" --wrap 'srun -l env')
result=$(lab_wait_job "$jid" 60) || lab_fail "job did not complete cleanly: $result; $(cat "$work/job-$jid.out" 2>/dev/null)"
echo "$result"
out="$work/job-$jid.out"
grep -E '^[0-9]+: (SLURM_NODEID|SLURMD_NODENAME)=' "$out" | sort -n
for task in $(seq 0 $(( n - 1 ))); do
  [[ $(grep -c "^$task: SLURM_NODEID=" "$out") -eq 1 ]] || lab_fail "task $task: no single SLURM_NODEID"
done
node_ids=$(sed -n 's/^[0-9]*: SLURM_NODEID=//p' "$out" | sort -n | tr '\n' ' ')
[[ "$node_ids" == "$(seq -s ' ' 0 $(( n - 1 ))) " ]] || lab_fail "SLURM_NODEIDs are '$node_ids'"
node_names=$(sed -n 's/^[0-9]*: SLURMD_NODENAME=//p' "$out" | sort -u | wc -l)
(( node_names == n )) || lab_fail "expected $n distinct SLURMD_NODENAMEs, got $node_names"
echo "PASS: batch job $jid ran one task per node, each with its own SLURM_NODEID"

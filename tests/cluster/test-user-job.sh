#!/usr/bin/env bash
# test-user-job.sh BASE: a batch job (with an inner srun on every node) submitted by the
# non-root lab user runs as that user and completes.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
user=${LAB_USER:-srtlab}
work=$("$HERE/lab-user.sh" --user "$user" --base "$LAB_BASE")
cd "$work"

n=$LAB_NODE_COUNT
# shellcheck disable=SC2016  # expanded by the job, not here
jid=$(lab_as_user "$user" sbatch --parsable -D "$work" -N"$n" -o "$work/job-%j.out" \
      --wrap 'echo "batch: $(id -un)"; srun -l bash -c "echo task: \$(id -un) \$SLURM_NODEID"')
result=$(lab_wait_job "$jid" 60) || lab_fail "job did not complete cleanly: $result; $(cat "$work/job-$jid.out" 2>/dev/null)"
echo "$result"
out="$work/job-$jid.out"
cat "$out"
[[ "$(lab_job_field "$jid" UserId)" == "$user("* ]] || lab_fail "job's UserId is $(lab_job_field "$jid" UserId)"
grep -qx "batch: $user" "$out" || lab_fail "batch step did not run as $user"
[[ $(grep -c ": task: $user " "$out") -eq $n ]] || lab_fail "expected $n tasks running as $user"
[[ "$(stat -c %U "$out")" == "$user" ]] || lab_fail "output file not owned by $user"
echo "PASS: job $jid of $user ran on $n nodes"

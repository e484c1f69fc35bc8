#!/usr/bin/env bash
# test-spank-env.sh BASE [USER]: with the 2P1D recipe every task sees exactly what
# `srt-helper plan --json` says its node must see: `srun -N3 -l env`, the batch step, an inner
# srun (the option is inherited), a worker step (`--srt-step=decode:0` on its node), and
# `sbatch --export=NONE`. Editing the recipe after submit changes nothing. Run as USER if given.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
user=${2:-root}
helper=${SRT_HELPER:?set SRT_HELPER to the srt-helper binary}
unset SRT_HELPER  # the tasks must see only what the plugin sets
profile="$LAB_BASE/etc/srt/cluster.yaml"
if [[ "$user" == root ]]; then
  work=$(lab_scratch "spank-env-root")
  as() { "$@"; }
else
  work=$("$HERE/lab-user.sh" --user "$user" --base "$LAB_BASE")/spank-env
  rm -rf "$work"; mkdir -p "$work"; chown "$user" "$work"
  as() { lab_as_user "$user" "$@"; }
fi
cd "$work"
recipe="$work/recipe.yaml"
cp "$HERE/../../recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml" "$recipe"
chmod 644 "$recipe"
check() { /usr/bin/python3 "$HERE/check_srt_env.py" "$@"; }
plan_for() {  # JOBID -> plan.json path
  # The lab's plugin line names the same fixture topology (topology=...), so workers bind alike.
  "$helper" plan "$recipe" --profile "$profile" --nodelist "$LAB_NODES" --job-id "$1" \
    --topology "$HERE/../fixtures/topology/mi355x-8gpu-pollara.xml" --json > "$work/plan-$1.json"
  echo "$work/plan-$1.json"
}

echo "--- srun -N3 --srt-recipe: each node's tasks"
as srun -N3 -l --srt-recipe="$recipe" env > "$work/srun.dump"
jid=$(sed -n 's/^0: SLURM_JOB_ID=//p' "$work/srun.dump")
check "$(plan_for "$jid")" "$work/srun.dump" --tasks 3 || lab_fail "srun -N3: tasks differ from the plan"

echo "--- sbatch: batch step, inner srun, worker step; the recipe is rewritten right after submit"
plan_nodes() { /usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(next(x["node"] for x in p["processes"] if x["name"]==sys.argv[2]))' "$@"; }
decode_node=$(plan_nodes "$(plan_for 0)" decode:0)
cat > "$work/job.sh" <<EOS
#!/bin/bash
export PATH=/usr/local/bin:/usr/bin:/bin   # --export=NONE starts the script with no PATH
sleep 1
env | sed 's/^/0: /' > batch.dump
srun -N3 -l /usr/bin/env > inner.dump   # inner sruns inherit --export=NONE: no PATH
srun -N1 -w $decode_node --srt-step=decode:0 -l /usr/bin/env > worker.dump
EOS
chmod 755 "$work/job.sh"
for export in ALL NONE; do
  rm -f batch.dump inner.dump worker.dump
  jid=$(as sbatch --parsable -N3 --export="$export" --srt-recipe="$recipe" -D "$work" \
        -o "$work/job-%j.out" "$work/job.sh")
  plan=$(plan_for "$jid")
  cp "$recipe" "$work/recipe.orig"
  printf 'name: rewritten-after-submit\n' > "$recipe"          # what was validated is what runs
  result=$(lab_wait_job "$jid" 90) || lab_fail "--export=$export: $result; $(cat "$work/job-$jid.out")"
  cp "$work/recipe.orig" "$recipe"
  echo "$result (--export=$export)"
  # The batch step runs on the first node; SLURMD_NODENAME is in its environment.
  check "$plan" batch.dump --tasks 1 || lab_fail "--export=$export: batch step differs from the plan"
  check "$plan" inner.dump --tasks 3 || lab_fail "--export=$export: inner srun differs from the plan"
  check "$plan" worker.dump --tasks 1 --step decode:0 || lab_fail "--export=$export: worker step differs"
done
echo "PASS: every step of the 2P1D job saw exactly its planned environment (as $user)"

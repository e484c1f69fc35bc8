#!/usr/bin/env bash
# test-spank-nodefail.sh BASE: a node-side failure fails the job with a clear message on the
# job's stderr and leaves every node usable (never drained): the cluster profile changes between
# submit and run (its digest no longer matches the snapshot's), then the profile disappears.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
work=$(lab_scratch spank-nodefail)
cd "$work"
profile="$LAB_BASE/etc/srt/cluster.yaml"
cp "$profile" "$work/profile.orig"
restore() { cp "$work/profile.orig" "$profile"; }
trap restore EXIT
recipe="$HERE/../../recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"

run_case() {  # NAME EXPECTED-TEXT MUTATION-COMMAND...
  local name=$1 text=$2 jid result
  shift 2
  restore
  # The batch script waits for the mutation, then starts a step: that step's nodes must refuse.
  jid=$(sbatch --parsable -N2 --srt-recipe="$recipe" -o "$work/$name-%j.out" \
        --wrap "while [ ! -e $work/$name.go ]; do sleep 0.1; done; srun -N2 true")
  sleep 0.5
  "$@"
  touch "$work/$name.go"
  result=$(lab_wait_job "$jid" 60) && lab_fail "$name: the job succeeded: $result"
  echo "$result"
  cat "$work/$name-$jid.out"
  grep -qF "srt: this job cannot run: " "$work/$name-$jid.out" || lab_fail "$name: no reason on the job's stderr"
  grep -qF -- "$text" "$work/$name-$jid.out" || lab_fail "$name: the reason lacks '$text'"
  local bad
  bad=$(lab_unusable_nodes)
  [[ -z "$bad" ]] || lab_fail "$name: nodes left unusable: $bad"
  rm -f "$work/$name.go"
  echo "ok: $name"
}
run_case digest "differs from the one the job was checked against" \
  sh -c "echo '# edited on the node after submit' >> '$profile'"
run_case missing "$profile" rm -f "$profile"
restore
sinfo -N
echo "PASS: node-side failures fail the job with the reason, and no node is drained"

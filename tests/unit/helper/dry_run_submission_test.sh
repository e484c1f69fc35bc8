#!/bin/bash
# launch --dry-run plans what a job submitted with the same recipe would carry, and refuses what
# the submit would refuse (srt/submission.hpp, the one function the plugin's submit side,
# `srt-helper snapshot` and the dry run share). A recipe too large for the job's snapshot: the
# submit refuses it, and a dry run that planned it anyway would show a job that cannot exist.
#   dry_run_submission_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset SRTSLURM_CONFIG SLURM_JOB_ID SLURM_JOB_NODELIST
recipe=$src/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml
printf 'cluster: t\ngpus_per_node: 8\n' >"$tmp/cluster.yaml"
dry_run() {  # RECIPE: launch --dry-run on two nodes; its exit code, all it said in $tmp/out
  "$helper" launch --dry-run --profile "$tmp/cluster.yaml" --recipe "$1" --nodelist "n[1-2]" --job-id 7 \
    --srt-exec /usr/libexec/srt/srt-exec >"$tmp/out" 2>&1
}

# The plain recipe: both make it (the baseline).
"$helper" snapshot "$recipe" --profile "$tmp/cluster.yaml" >/dev/null || fail "snapshot of $recipe"
dry_run "$recipe" || fail "dry run of $recipe: $(tail -5 "$tmp/out")"

# The same recipe under 120 KiB of comment: the snapshot keeps the file's bytes, so it is over the
# limit a job's environment can carry.
{ cat "$recipe"; for _ in $(seq 1500); do printf '# %078d\n' 0; done; } >"$tmp/large.yaml"
"$helper" snapshot "$tmp/large.yaml" --profile "$tmp/cluster.yaml" >/dev/null 2>"$tmp/err" &&
  fail "srt-helper snapshot carried a recipe over the snapshot's limit"
grep -q "too large to carry into the job" "$tmp/err" || fail "snapshot's refusal: $(cat "$tmp/err")"
dry_run "$tmp/large.yaml" && fail "launch --dry-run planned a recipe the submit refuses: $(tail -3 "$tmp/out")"
grep -q "too large to carry into the job" "$tmp/out" || fail "the dry run's refusal: $(tail -5 "$tmp/out")"

# A variants file without a selector: refused as a job's, naming the variants.
variants=$src/tests/fixtures/recipes/variants/atom-variants.yaml
dry_run "$variants" && fail "launch --dry-run planned a variants file without a selector"
grep -q "variants, and a job runs one" "$tmp/out" || fail "the variants refusal: $(tail -5 "$tmp/out")"
echo "PASS"

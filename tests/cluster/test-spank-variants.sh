#!/usr/bin/env bash
# test-spank-variants.sh BASE: srt-slurm 2.x recipes through the plugin.
#  - sbatch --srt-recipe=FILE:override_x runs that variant: every task sees SRT_RECIPE as given
#    and its node index, on the variant's node count;
#  - a selector the file does not have, and a variants file without a selector, are refused
#    before anything is queued, with the list of valid selectors;
#  - a schema: 2 recipe (the 1P1D ATOM recipe in schema 2) runs as its v1 original does.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"
unset SRT_HELPER  # ctest passes it; the tasks must see only what the plugin sets
work=$(lab_scratch spank-variants)
cd "$work"
variants="$HERE/../fixtures/recipes/variants/atom-variants.yaml"
v2="$HERE/../../recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"

# shellcheck disable=SC2016  # expanded by each task, not here
jid=$(sbatch --parsable -N3 --srt-recipe="$variants:override_2p1d" -o "$work/variant-%j.out" \
  --wrap 'srun -N3 -l bash -c "echo \$SRT_RECIPE \$SRT_NODE_INDEX"')
result=$(lab_wait_job "$jid" 60) || { cat "$work/variant-$jid.out"; lab_fail "variant job: $result"; }
cat "$work/variant-$jid.out"
for i in 0 1 2; do
  grep -qE "^$i: $variants:override_2p1d $i\$" "$work/variant-$jid.out" ||
    lab_fail "task $i did not see SRT_RECIPE=$variants:override_2p1d and node index $i"
done
echo "ok: --srt-recipe=FILE:override_2p1d ran the variant on 3 nodes"

lab_expect_refused bad-selector "$work/bad-selector.out" "override_2p1d" sbatch -N2 --srt-recipe="$variants:override_nope" --wrap true
lab_expect_refused no-selector "$work/no-selector.out" "zip_override_scale" sbatch -N2 --srt-recipe="$variants" --wrap true

# shellcheck disable=SC2016  # expanded by each task
mapfile -t idx < <(srun -N2 --srt-recipe="$v2" bash -c 'echo $SRT_NODE_INDEX' | sort)
[[ "${idx[*]}" == "0 1" ]] || lab_fail "the schema-2 recipe's tasks saw node indexes '${idx[*]}'"
echo "ok: a schema: 2 recipe runs (node indexes ${idx[*]})"
echo "PASS: variants by selector, refused selectors, and schema 2 through the plugin"

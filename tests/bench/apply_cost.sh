#!/usr/bin/env bash
# apply_cost.sh BUILD_DIR [RUNS]: `srtctl apply --json` as InferenceX's srt driver runs it, once per
# job (docs/performance.md): wall time from start to the manifest on stdout, and peak RSS, with
# sbatch, scontrol and scancel replaced by programs that answer at once (sbatch hands out a new job
# id each call, so every run writes a job directory of its own). Beside it, srtctl when SRTCTL_SRC
# names a srt-slurm checkout: `srtctl dry-run -f` of the same recipe (srtctl's apply needs a
# cluster's srtslurm.yaml and sbatch's reply format; its dry-run is the same validate-and-render
# path without the submit). Numbers only: fails only when a run fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
build=$(cd "${1:?usage: apply_cost.sh BUILD_DIR [RUNS]}" && pwd)
runs=${2:-20}
srtctl_ours=$build/helper/srtctl-path/srtctl
[[ -x "$srtctl_ours" ]] || { echo "apply_cost.sh: $srtctl_ours is missing: build $build first" >&2; exit 2; }

# mktemp: root writes here, and a guessable /tmp name could be another user's link.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/results"
# dash and its builtins only: the fakes' own cost is a few milliseconds of what is measured.
echo 1000 > "$work/next-job"
cat > "$work/bin/sbatch" <<SH
#!/bin/sh
read -r n < "$work/next-job"
n=\$((n + 1))
echo "\$n" > "$work/next-job"
echo "\$n"
SH
printf '#!/bin/sh\nexit 0\n' > "$work/bin/scontrol"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/scancel"
chmod 755 "$work/bin"/*
# The profile of a site: the results root is this run's; no daemon is asked anything at apply.
cat > "$work/cluster.yaml" <<YAML
cluster: bench
node_sharing: shared
gpus_per_node: 8
container_runtime: none
results_root: $work/results
YAML

measure() {  # NAME RECIPE
  PATH="$work/bin:$PATH" "$HERE/process_cost.py" "$1" "$runs" -- \
    "$srtctl_ours" apply --profile "$work/cluster.yaml" -f "$2" --json --yes
}
# The shapes InferenceX's MI355X lanes submit most: one SGLang node (a variant of a variants file,
# as the runner names it), and ATOM's 2P1D.
measure "srtctl apply --json (SGLang agg)" "$SRC/recipes/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:override_tp8_dpa"
measure "srtctl apply --json (ATOM 2P1D)" "$SRC/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
# Every run wrote what apply writes (the job's directory, <jobid>.json, the sweep log): a run that
# printed a manifest without them would have measured less than the work.
last=$(cat "$work/next-job")
[[ -f "$work/results/$last/$last.json" && -f "$work/results/$last/logs/sweep_$last.log" ]] ||
  { echo "apply_cost.sh: job $last has no $last.json or sweep log under $work/results" >&2; exit 1; }

example=${SRTCTL_SRC:-/nonexistent}/examples/example.yaml
if [[ -n "${SRTCTL_SRC:-}" && -d "$SRTCTL_SRC/src/srtctl" && -f "$example" ]]; then
  ours=$(measure "srtctl apply --json (srtctl example)" "$example")
  echo "$ours"
  theirs=$(cd "$work" && PATH="$work/bin:$PATH" "$HERE/process_cost.py" "srtctl dry-run (srtctl example)" 5 -- \
    env "PYTHONPATH=$SRTCTL_SRC/src" /usr/bin/python3 -m srtctl.cli.submit dry-run -f "$example")
  echo "$theirs"
  awk -v a="$ours" -v b="$theirs" 'BEGIN { n = split(a, x, " "); m = split(b, y, " ");
    printf "srtctl dry-run / srt-helper apply (median wall): %.0fx\n", y[m - 2] / x[n - 2] }'
else
  echo "srtctl beside it: skipped (SRTCTL_SRC does not name a srt-slurm checkout with examples/example.yaml)"
fi

#!/usr/bin/env bash
# apply_cost.sh BUILD_DIR [RUNS] [RECIPE...]: `srtctl apply --json` as InferenceX's srt driver runs
# it, once per job (docs/performance.md): wall time from start to the manifest on stdout, and peak
# RSS, with sbatch, scontrol and scancel replaced by programs that answer at once (sbatch hands out
# a new job id each call, so every run writes a job directory of its own). Without RECIPEs, the two
# shapes InferenceX's MI355X lanes submit most. srtctl itself is measured beside it by
# bench-all.sh, which finds it (installed, or SRTCTL_SRC) and hands this script srt-slurm's example.
# Numbers only: fails only when a run fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
build=$(cd "${1:?usage: apply_cost.sh BUILD_DIR [RUNS] [RECIPE...]}" && pwd)
runs=${2:-20}
shift $(( $# < 2 ? $# : 2 ))
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
if (( $# )); then
  for recipe in "$@"; do measure "srtctl apply --json ($(basename "$recipe"))" "$recipe"; done
else
  # A variant of a variants file (as the runner names one), and ATOM's 2P1D.
  measure "srtctl apply --json (SGLang agg)" "$SRC/recipes/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:override_tp8_dpa"
  measure "srtctl apply --json (ATOM 2P1D)" "$SRC/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
fi
# Every run wrote what apply writes (the job's directory, <jobid>.json, the sweep log): a run that
# printed a manifest without them would have measured less than the work.
last=$(cat "$work/next-job")
[[ -f "$work/results/$last/$last.json" && -f "$work/results/$last/logs/sweep_$last.log" ]] ||
  { echo "apply_cost.sh: job $last has no $last.json or sweep log under $work/results" >&2; exit 1; }


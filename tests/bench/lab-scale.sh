#!/usr/bin/env bash
# lab-scale.sh BUILD_DIR [--nodes N] [--runs R] [--port P] [--base DIR] [--engines "atom sglang"]: the
# plugin in a job of N nodes (default 64) on one multi-slurmd lab ("Slurm scale"): N slurmd on this
# host, each its own node, the plugin in the plugstack. lab_cost.py then measures, on that same lab,
# for each engine, `srun -N3` and `srun -N<N>` without the srt line, with it unused, and with
# --srt-recipe (a 2P1D recipe of that engine, which needs 3 of the nodes: the others are planned and
# idle; ATOM's lab twin, and SGLang's PD shape in tests/fixtures/recipes/bench), the plugin's own
# callback times on every node, and the memory and libraries one slurmstepd of the step adds. Numbers
# only; it fails only when a run fails or a library is where it must not be. Bounded: R runs per
# variant (default 5), every srun under lab_cost.py's timeout. Not part of scripts/test.sh (a 64
# node lab on 2 cores takes minutes); docs/performance.md gives its numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
build=${1:?usage: lab-scale.sh BUILD_DIR [--nodes N] [--runs R] [--port P] [--base DIR] [--engines LIST]}
build=$(cd "$build" && pwd)
shift
nodes=64 runs=5 port=18100 base=/tmp/srt-scale-lab engines="atom sglang"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    *) echo "lab-scale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
recipe_of() {
  case "$1" in
    atom) echo "$SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml" ;;
    sglang) echo "$SRC/tests/fixtures/recipes/bench/sglang-disagg-2p1d-dpa-tp8.yaml" ;;
    *) echo "lab-scale.sh: no recipe for engine $1 (atom, sglang)" >&2; exit 2 ;;
  esac
}
for engine in $engines; do recipe_of "$engine" > /dev/null; done
trap '"$SRC/tests/cluster/lab-stop.sh" --base "$base" --port "$port" --quiet || true' EXIT
t0=$(date +%s.%N)
# multi: every slurmd in this host's namespaces (the netns mode's bridge and namespaces per node
# would measure the lab, not the plugin); 1 CPU and 1 GB per node so that N of them fit.
# SRT_HELPER: lab-profile.sh fills BASE/cache as root does on a node (docs/security.md "Recipes and snapshots").
SRT_HELPER=$build/helper/srt-helper "$SRC/tests/cluster/lab-start.sh" --base "$base" --port "$port" --mode multi \
  --nodes "$nodes" --cpus 1 --mem 1000 --srt-profile --timeout 300 > /dev/null
echo "lab of $nodes nodes (multi-slurmd) up in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
spank_line="$build/spank/spank_srt.so impl=$build/spank/srt_spank_impl.so profile=$base/etc/srt/cluster.yaml cache_dir=$base/cache"
for engine in $engines; do
  for n in 3 "$nodes"; do
    printf '\n--- %s, srun -N%s\n' "$engine" "$n"
    "$HERE/lab_cost.py" --base "$base" --spank "$spank_line" --recipe "$(recipe_of "$engine")" --nodes "$n" \
      --runs "$runs" --rss-runs 2 --timing-runs 3
  done
done

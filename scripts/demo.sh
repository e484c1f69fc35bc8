#!/usr/bin/env bash
# The main job, end to end on this machine: installs what is missing, builds, starts a real
# 3-node Slurm lab cluster (munged, slurmctld, one slurmd per node, each node in its own network
# namespace, the freshly built spank_srt.so in plugstack.conf), runs the 2P1D DeepSeek-V4 recipe's
# lab twin on stand-in engines with `srt-helper run`, prints the per-concurrency results, stops
# the lab. Exits 0 only if the job succeeded; the last line is `results: <dir>`.
#   scripts/demo.sh [--recipe FILE] [--mode netns|multi] [--keep-lab]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
recipe="$src/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml"
mode=netns
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --recipe) recipe=$(realpath "$2"); shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --keep-lab) keep=1; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "demo: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
# set -e alone exits silently: say which command failed and where to look.
trap 'rc=$?; echo "demo: FAILED (exit $rc) at line $LINENO: $BASH_COMMAND" >&2' ERR
[ -r "$recipe" ] || { echo "demo: cannot read the recipe $recipe" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "demo: run as root (the lab starts Slurm's daemons and network namespaces)" >&2; exit 2; }

build=${SRT_BUILD_DIR:-$src/build-demo}
base=${SRT_DEMO_LAB:-/tmp/srt-demo-lab}
port=${SRT_DEMO_PORT:-16817}
results="$src/results"

echo "== installing what is missing"
bash "$src/scripts/install-deps.sh" || { echo "demo: installing the dependencies failed (scripts/install-deps.sh, above)" >&2; exit 1; }
echo "== building into $build"
mkdir -p "$build"
quiet() {  # LOG COMMAND...: the command's output only when it fails
  local log=$1; shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "demo: '$*' failed (log: $log)" >&2; return 1; }
}
quiet "$build/demo-configure.log" cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSRT_BUILD_TESTS=OFF
quiet "$build/demo-build.log" cmake --build "$build" -j "$(nproc)" --target spank_srt srt_spank_impl srt_spank_node srt-helper srt-exec

echo "== starting a 3-node Slurm lab ($mode mode) in $base"
fixture="$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml"
SRT_HELPER=$build/helper/srt-helper "$src/tests/cluster/lab-start.sh" --base "$base" --port "$port" --mode "$mode" \
  --nodes 3 --srt-profile \
  --spank "$build/spank/spank_srt.so impl=$build/spank/srt_spank_impl.so profile=$base/etc/srt/cluster.yaml cache_dir=$base/cache topology=$fixture"
stop_lab() { [ "$keep" = 1 ] || "$src/tests/cluster/lab-stop.sh" --base "$base" >/dev/null; }
trap stop_lab EXIT
# shellcheck disable=SC1091
source "$base/env.sh"

echo "== srt-helper run $(basename "$recipe")"
rc=0
"$build/helper/srt-helper" run "$recipe" --profile "$base/etc/srt/cluster.yaml" --results "$results" \
  | tee "$base/demo-run.log" || rc=$?
dir=$(sed -n 's/^results: //p' "$base/demo-run.log" | tail -n1)
stop_lab
trap - EXIT
[ "$rc" = 0 ] && echo "demo: the job succeeded" || echo "demo: the job FAILED (srt-helper run exit $rc)"
echo "results: ${dir:-$results}"
exit "$rc"

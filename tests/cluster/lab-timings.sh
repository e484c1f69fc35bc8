#!/usr/bin/env bash
# lab-timings.sh [--base DIR] [--port P] [--runs N]: measure the lab, for README.md's table.
# For each mode, N times: start a 3-node lab (over the previous one: idempotent start),
# submit a 3-node batch job at once and wait for its end (first sbatch), a second one, then
# "srun -N3 true", then stop. Prints one line per run.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
base=/tmp/lab-timings
port=17897
runs=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: lab-timings.sh [--base DIR] [--port P] [--runs N]" >&2; exit 2 ;;
  esac
done
trap '"$HERE/lab-stop.sh" --base "$base" --purge --quiet || true' EXIT

timed_job() {
  local t jid
  t=$(lab_now)
  jid=$(sbatch --parsable -N3 -o /dev/null --wrap 'srun true')
  lab_wait_job "$jid" 60 >/dev/null || lab_die "job $jid failed"
  lab_elapsed "$t"
}

for mode in multi netns; do
  for run in $(seq 1 "$runs"); do
    t=$(lab_now)
    "$HERE/lab-start.sh" --base "$base" --port "$port" --mode "$mode" 2>/dev/null
    start=$(lab_elapsed "$t")
    # shellcheck disable=SC1091
    source "$base/env.sh"
    first=$(timed_job)
    second=$(timed_job)
    t=$(lab_now); srun -N3 true; step=$(lab_elapsed "$t")
    t=$(lab_now); "$HERE/lab-stop.sh" --base "$base" --quiet; stop=$(lab_elapsed "$t")
    echo "$mode run $run: start ${start}s  first sbatch ${first}s  second sbatch ${second}s  srun -N3 ${step}s  stop ${stop}s"
  done
done

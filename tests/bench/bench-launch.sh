#!/usr/bin/env bash
# bench-launch.sh BASE [RUNS]: how long srt-helper launch takes from the job's start to the first
# benchmark request, with stand-ins that are healthy at once (SRT_STANDIN_LOAD_SECONDS=0), on a
# running lab (tests/cluster: lab-start.sh with the plugin, then lab-profile.sh). Runs the 1P1D
# lab recipe RUNS times (3) and prints, per run, seconds since the launcher started:
#   healthy     every worker's /health answered 200
#   router      AToMesh's /workers listed every worker; the benchmark step starts now
#   first-req   the benchmark's first measured request (result JSON benchmark_start_time_unix
#               of the first concurrency; its one warm-up request went out just before)
# Needs SRT_HELPER and SRT_JOB (the build's srt-helper and helper/srt-job). Target: first-req < 3 s.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../cluster/lib.sh
source "$HERE/../cluster/lib.sh"
# shellcheck source=../cluster/launch-lib.sh
source "$HERE/../cluster/launch-lib.sh"
lab_test_init "${1:-}"
runs=${2:-3}
recipe="$LAUNCH_SRC/recipes/lab/disagg-1p1d-tp8-lab.yaml"
printf '%-6s %8s %8s %9s %9s\n' job healthy router first-req total
for _ in $(seq 1 "$runs"); do
  jid=$(SRT_STANDIN_LOAD_SECONDS=0 launch_submit "$recipe")
  lab_wait_job "$jid" 300 >/dev/null || { launch_show "$jid"; lab_die "job $jid failed"; }
  /usr/bin/python3 - "$(launch_job_dir "$jid")" "$jid" <<'PY'
import glob, json, os, sys
d, jid = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(d, "status.json")))
t, start = s["timings_seconds"], s["started_unix"]
first = min(json.load(open(f))["benchmark_start_time_unix"] for f in glob.glob(os.path.join(d, "fixed-seq", "*.json")))
print(f"{jid:<6} {t['router']:8.2f} {t['benchmark']:8.2f} {first - start:9.2f} {t['end']:9.2f}")
PY
done

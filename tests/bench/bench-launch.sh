#!/usr/bin/env bash
# bench-launch.sh BASE [RUNS]: how long srt-helper launch takes from the job's start to the first
# benchmark request, with stand-ins that are healthy at once (SRT_STANDIN_LOAD_SECONDS=0), on a
# running lab (tests/cluster: lab-start.sh with the plugin, then lab-profile.sh). Runs the 1P1D
# lab recipe RUNS times (3) and prints, per run, seconds since the launcher started:
#   healthy     every worker's /health answered 200
#   router      AToMesh's /workers listed every worker; the benchmark step starts now
#   first-req   the benchmark's first measured request (result JSON benchmark_start_time_unix
#               of the first concurrency; its one warm-up request went out just before)
#   end-lag     from the last response (latest benchmark_start_time_unix + duration) to the
#               launcher's end: steps stopped, logs archived, status written
#   ready-lag   from the last worker's own "ready to accept requests" log line to the launcher
#               noticing every worker healthy
# Needs SRT_HELPER and SRT_JOB (the build's srt-helper and helper/srt-job).
# Targets: first-req < 3 s, end-lag < 2 s, ready-lag < 0.5 s.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../cluster/lib.sh
source "$HERE/../cluster/lib.sh"
# shellcheck source=../cluster/launch-lib.sh
source "$HERE/../cluster/launch-lib.sh"
lab_test_init "${1:-}"
runs=${2:-3}
recipe="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
printf '%-6s %8s %8s %9s %8s %9s %9s\n' job healthy router first-req end-lag ready-lag total
for _ in $(seq 1 "$runs"); do
  jid=$(SRT_STANDIN_LOAD_SECONDS=0 launch_submit "$recipe")
  lab_wait_job "$jid" 300 >/dev/null || { launch_show "$jid"; lab_die "job $jid failed"; }
  /usr/bin/python3 - "$(launch_job_dir "$jid")" "$jid" <<'PY'
import datetime, glob, json, os, re, sys
d, jid = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(d, "status.json")))
t, start = s["timings_seconds"], s["started_unix"]
results = [json.load(open(f)) for f in glob.glob(os.path.join(d, "fixed-seq", "*.json"))]
first = min(r["benchmark_start_time_unix"] for r in results)
last = max(r["benchmark_start_time_unix"] + r["duration"] for r in results)
# The stand-in logs like ATOM: "INFO 2026-11-29 23:59:01,123 [...] Server started successfully..."
ready = []
for f in glob.glob(os.path.join(d, "logs", "*_prefill_w*.out")) + glob.glob(os.path.join(d, "logs", "*_decode_w*.out")):
    for line in open(f, errors="replace"):
        m = re.match(r"\S+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*ready to accept requests", line)
        if m:
            ready.append(datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp())
ready_lag = f"{start + t['router'] - max(ready):9.2f}" if ready else f"{'?':>9}"
print(f"{jid:<6} {t['router']:8.2f} {t['benchmark']:8.2f} {first - start:9.2f} {start + t['end'] - last:8.2f} {ready_lag} {t['end']:9.2f}")
PY
done

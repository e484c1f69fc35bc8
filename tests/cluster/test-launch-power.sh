#!/usr/bin/env bash
# test-launch-power.sh BASE: GPU power telemetry as srtctl runs it (srtctl's telemetry block, the
# profile's default_gpu_exporter: the device-metrics-exporter stand-in) on the SGLang lab twin.
#   measured: telemetry enabled and required; the exporter runs as its own step on the worker's
#     node, the collector's samples.csv holds all 8 GPUs under the node's Slurm name, each point
#     has a completed window, manifest.json is publishable, the job completes, and the exporter
#     is gone afterwards (nothing on port 5000, nothing of the job left on any node);
#   unready: the exporter leaves one GPU out (SRT_STANDIN_EXPORTER_DROP_GPU): no scrape covers
#     every worker GPU within startup_timeout_seconds, and being required the job fails before
#     its benchmark, class "telemetry", naming the GPU; the manifest says why.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
t0=$(lab_now)
recipe="$LAUNCH_SRC/recipes/lab/dsr1/sglang/mi355x-fp8/8k1k/agg-tp8.yaml:base"
power='telemetry={"enabled": true, "required": true, "collect_interval_ms": 500, "startup_timeout_seconds": 8}'

# A JSON field of FILE by a Python expression over it (j).
field() { /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

jid=$(launch_helper_submit "$recipe" --set "$power")
echo "job $jid: measured"
result=$(lab_wait_job "$jid" 240) || { launch_show "$jid"; lab_fail "job $jid did not complete: $result"; }
echo "$result after $(lab_elapsed "$t0") s"
dir=$(launch_job_dir "$jid")
power_dir=$dir/logs/power
node=$(sed -n 's/^\(.*\)_agg_w0\.out$/\1/p' < <(ls "$dir/logs"))
[[ -n "$node" ]] || lab_fail "cannot tell the worker's node from $dir/logs"
grep -q "telemetry: every worker GPU reported (8)" "$dir/logs/sweep_$jid.log" ||
  { launch_show "$jid"; lab_fail "the launcher did not see all 8 GPUs reported"; }
[[ -s "$dir/logs/${node}_gpu_exporter.out" ]] || lab_fail "the exporter's log ${node}_gpu_exporter.out is missing"
header=$(head -1 "$power_dir/samples.csv")
[[ "$header" == "schema_version,timestamp_unix,scrape_seq,hostname,gpu_index,gpu_uuid,power_w,gpu_util_pct,sm_active,temperature_c" ]] ||
  lab_fail "samples.csv header: $header"
gpus=$(awk -F, -v n="$node" 'NR > 1 && $4 == n {print $5}' "$power_dir/samples.csv" | sort -u | paste -sd, -)
[[ "$gpus" == 0,1,2,3,4,5,6,7 ]] || lab_fail "samples.csv has GPUs '$gpus' of $node, expected 0-7"
for c in 1 4; do
  w=$(grep -l "\"concurrency\": $c," "$power_dir"/windows/*.json) || lab_fail "no window for c$c"
  [[ "$(field "$w" 'j["status"]')" == completed ]] || lab_fail "the c$c window is not completed: $(cat "$w")"
done
verdict=$(field "$power_dir/manifest.json" 'j["status"], j["publication_valid"], j["reason_codes"], len(j["expected_devices"])')
echo "manifest: $verdict"
[[ "$verdict" == "('complete', True, [], 8)" ]] || lab_fail "the manifest is not a publishable measurement of 8 GPUs: $verdict"
[[ "$(launch_status "$jid" state)" == completed ]] || lab_fail "status.json does not say completed"
launch_assert_clean "$jid" 10
listening=$(nsenter --net="/run/netns/$LAB_NETNS_PREFIX-$node" ss -Hltn 'sport = :5000')
[[ -z "$listening" ]] || lab_fail "something still listens on $node:5000 after the job: $listening"
echo "measured: 8 GPUs, $(($(wc -l < "$power_dir/samples.csv") - 1)) samples, publishable; the exporter is gone"

t1=$(lab_now)
jid=$(SRT_STANDIN_EXPORTER_DROP_GPU=3 launch_helper_submit "$recipe" --set "$power")
echo "job $jid: the exporter leaves GPU 3 out"
launch_expect_failed "$jid" 120 "telemetry: the GPU exporters did not report every worker GPU" "GPU 3" "no benchmark was run"
launch_expect_class "$jid" telemetry
dir=$(launch_job_dir "$jid")
[[ ! -e "$dir/logs/benchmark.out" ]] || lab_fail "the benchmark ran although required telemetry was not ready"
reasons=$(field "$dir/logs/power/manifest.json" 'j["status"], j["reason_codes"]')
echo "manifest: $reasons"
[[ "$reasons" == *"'failed'"*"exporter_startup_timeout"* ]] || lab_fail "the manifest does not record the startup timeout: $reasons"
launch_assert_clean "$jid" 10
echo "PASS: telemetry measured and publishable, then refused unready, in $(lab_elapsed "$t0") s (the second in $(lab_elapsed "$t1") s)"

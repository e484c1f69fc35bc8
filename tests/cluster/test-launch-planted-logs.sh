#!/usr/bin/env bash
# test-launch-planted-logs.sh BASE: code in a job's container plants a symbolic link at every log
# name a later step or the launcher uses (the lab's setup-script stand-in, SRT_STANDIN_SETUP_PLANT,
# in the vLLM twin's preflight step, before any worker starts), pointing at a file of the user's.
# The launcher opens every step's output itself through the job's log directory (never
# following a link; docs/security.md "Containers"), so the next step is not started, the job fails
# saying why, the link's target is untouched, and none of its bytes reach the sweep log, the job's
# output or status.json. Runs under the lab profile's runtime (bwrap; test-launch-containers.sh
# runs it under podman and docker).
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
t0=$(lab_now)
recipe="$LAUNCH_SRC/recipes/lab/dsv4/vllm/mi355x-fp4/agentic/agg.yaml:override_tp4_c1"
profile="$LAB_BASE/etc/srt/cluster.yaml"
work=$(lab_scratch planted-logs)
# The user's file the links point at (~/.bashrc or authorized_keys on a real cluster): a marker
# that must never be appended to or copied out.
target="$work/authorized_keys"
marker="srt-planted-marker-$RANDOM$RANDOM"
echo "$marker" > "$target"
before=$(sha256sum "$target")

# Every log name of the job's Plan, on the nodes Slurm will give it (the lab's first ones), the
# name a relaunched worker's old log is set aside as, and the launcher's own sweep log.
nodes=$("$SRT_HELPER" nodes --profile "$profile" "$recipe")
nodelist=$(scontrol show hostnames "$LAB_NODES" | head -n "$nodes" | paste -sd,)
names=$("$SRT_HELPER" plan "$recipe" --profile "$profile" --nodelist "$nodelist" --json 2>/dev/null |
  /usr/bin/python3 -c 'import json, sys
names = [p["log_file"] for p in json.load(sys.stdin)["processes"] if p.get("log_file")]
print(",".join(names + [n + ".1" for n in names]))')
[[ $names == *benchmark* ]] || lab_fail "no benchmark log among the Plan's: $names"
echo "planting links to $target at: $names"

jid=$(launch_helper_submit "$recipe" --set "roles.agg.env.SRT_STANDIN_SETUP_PLANT=\"$target\"" \
  --set "roles.agg.env.SRT_STANDIN_SETUP_PLANT_NAMES=\"$names\"")
echo "job $jid"
launch_expect_failed "$jid" 180 "is a symbolic link" "it is not followed" "a container of this job put it there"
dir=$(launch_job_dir "$jid")
[[ "$(sha256sum "$target")" == "$before" ]] || lab_fail "the link's target changed: $(head -c 300 "$target")"
for f in "$dir/logs/sweep_$jid.log" "$LAB_BASE/work/launch-$jid.out" "$dir/status.json"; do
  [[ -f $f ]] || lab_fail "no $f"
  if grep -q "$marker" "$f"; then lab_fail "the target's bytes reached $f"; fi
done
planted=$(find "$dir/logs" -maxdepth 1 -type l | wc -l)
(( planted > 0 )) || lab_fail "no link was planted in $dir/logs (the setup script did not run?)"
echo "$planted link(s) left in logs/, each pointing at the target, none followed"
launch_assert_clean "$jid" 10
echo "PASS: links planted at every log name were never followed in $(lab_elapsed "$t0") s"

#!/usr/bin/env bash
# test-launch-pyxis-argv.sh BASE: the pyxis command lines srt-helper launch builds are ones a
# real srun accepts. The lab loads fake_pyxis.so (pyxis's option names, no containers); inside
# an srt job, every step's srun line from `srt-helper launch --dry-run` under a pyxis profile is
# run with `env` as its command, and each task must see the image, the mounts (in srtctl's
# order: /logs first, /dev/kfd, /dev/dri, the profile's default_mounts, srt-exec) and the
# recipe's container srun_options as pyxis would receive them; the decode role has its own image
# and srun option (srtctl v2.18's roles.<role>.container and .srun_options), which its step alone
# gets.
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
work=$(lab_scratch launch-pyxis)
shipped="$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"
recipe=$work/recipe.yaml
role_image="rocm/atom-dev:decode-role-image"
awk -v img="$role_image" '{ print } /^  decode:$/ {
  print "    container: \"" img "\""; print "    srun_options: {container-workdir: /tmp}" }' "$shipped" > "$recipe"
grep -q "container: \"$role_image\"" "$recipe" || lab_fail "the decode role's container was not added to the recipe"
sed -e 's/^container_runtime: .*/container_runtime: pyxis/' -e "s|^results_root: .*|results_root: $work/results|" \
  "$LAB_BASE/etc/srt/cluster.yaml" > "$work/pyxis.yaml"
cat > "$work/job.sh" <<'JOB'
#!/bin/bash
set -euo pipefail
"$SRT_HELPER" launch --dry-run --profile "$WORK/pyxis.yaml" --recipe "$RECIPE" \
  --nodelist "$SLURM_JOB_NODELIST" --job-id "$SLURM_JOB_ID" > "$WORK/steps.json"
mkdir -p "$WORK/results/$SLURM_JOB_ID/logs"
/usr/bin/python3 - "$WORK/steps.json" "$WORK/results/$SLURM_JOB_ID/logs" <<'PY'
import json, os, subprocess, sys
# Each step's output appended to its log, as the launcher hands it to srun (no --output).
for step in json.load(open(sys.argv[1])):
    with open(os.path.join(sys.argv[2], step["log_file"]), "ab") as out:
        r = subprocess.run(step["srun"] + ["env"], stdout=out, stderr=subprocess.STDOUT)
    print(step["name"], "srun exit", r.returncode, flush=True)
    if r.returncode:
        sys.exit(1)
PY
JOB
jid=$(WORK=$work RECIPE=$recipe sbatch --parsable --srt-recipe="$recipe" -N2 -o "$work/job-%j.out" "$work/job.sh")
result=$(lab_wait_job "$jid" 60) || { cat "$work/job-$jid.out"; lab_fail "job: $result"; }
cat "$work/job-$jid.out"
logs="$work/results/$jid/logs"
image=$(awk -F'"' '/^  container:/ { print $2; exit }' "$recipe")
for log in node1_prefill_w0.out node2_decode_w0.out node1_atomesh_0.out benchmark.out; do
  [[ -s "$logs/$log" ]] || lab_fail "no $log"
  want_image=$image workdir=absent
  [[ "$log" == *decode* ]] && want_image=$role_image workdir=/tmp
  grep -qxF "FAKE_PYXIS_CONTAINER_IMAGE=$want_image" "$logs/$log" || lab_fail "$log: image $want_image not passed"
  got_workdir=$(sed -n 's/^FAKE_PYXIS_CONTAINER_WORKDIR=//p' "$logs/$log")
  [[ "${got_workdir:-absent}" == "$workdir" ]] || lab_fail "$log: --container-workdir is '${got_workdir:-absent}', want $workdir"
  grep -qx 'FAKE_PYXIS_NO_CONTAINER_MOUNT_HOME=1' "$logs/$log" || lab_fail "$log: --no-container-mount-home"
  grep -qx 'FAKE_PYXIS_NO_CONTAINER_ENTRYPOINT=1' "$logs/$log" || lab_fail "$log: --no-container-entrypoint"
  grep -qx 'FAKE_PYXIS_CONTAINER_WRITABLE=1' "$logs/$log" || lab_fail "$log: recipe srun_options"
  grep -qx 'FAKE_PYXIS_CONTAINER_REMAP_ROOT=1' "$logs/$log" || lab_fail "$log: recipe srun_options"
  grep -q '^FAKE_PYXIS_CONTAINER_NAME=srt-' "$logs/$log" || lab_fail "$log: --container-name"
  mounts=$(sed -n 's/^FAKE_PYXIS_CONTAINER_MOUNTS=//p' "$logs/$log")
  want="$work/results/$jid/logs:/logs,$work/results/$jid:/results/$jid,/dev/kfd:/dev/kfd,/dev/dri:/dev/dri,$LAB_BASE/infmax-workspace:/infmax-workspace,"
  [[ "$mounts" == "$want"*":/usr/local/libexec/srt/srt-exec:ro" ]] || lab_fail "$log: mounts are $mounts"
  echo "$log: image, mounts, options as pyxis would get them"
done
grep -qx 'SRT_STEP=prefill:0' "$logs/node1_prefill_w0.out" || lab_fail "the worker step lost --srt-step"
echo "PASS: real srun accepted every pyxis step line"

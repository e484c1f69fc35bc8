#!/usr/bin/env bash
# matrix-lab.sh BUILD_DIR: the lab subset of the build matrix: the cluster tests that
# say whether srt-spank works with this Slurm, against the plugin, implementation and srt-helper
# of BUILD_DIR, on the Slurm installed where it runs. scripts/test.sh runs it in each matrix root
# filesystem (scripts/rootfs.sh run RELEASE --rw BUILD_DIR -- tests/cluster/matrix-lab.sh
# BUILD_DIR); it runs as well on the host against the host's build.
#
#   netns lab (3 nodes, the plugin with the lab profile):
#     hostnames, batch-env      node identity: own hostname per node, SLURM_NODEID per task
#     user-job                  a batch job of the non-root lab user (lab-user.sh) runs as that user
#     spank-submit              a bad recipe refused by sbatch, salloc and srun; plain jobs untouched
#     spank-env                 every step sees its planned SRT_ environment (node identity from
#                               the Plan), also under sbatch --export=NONE, and the recipe
#                               rewritten right after submit changes nothing (the snapshot runs)
#     spank-env-user            spank-env as the non-root lab user (the plugin's submit side and
#                               the snapshot as a user meets them: no root-only path or file)
#     spank-nodefail            node-side failures fail the job with the reason, no node drained
#     snapshot-recipe-deleted   the recipe file removed right after sbatch: the job's steps run
#                               from the snapshot, each node with its own SRT_NODE_INDEX
#     run-1p1d-twin             `srt-helper run` of the 1P1D lab twin end to end, as a user runs
#                               it (submitted with the profile's --gres=gpu:8): workers healthy,
#                               every concurrency's result valid, COMPLETED 0:0, nothing left
#     no-drained-node           sinfo: every node idle at the end
#     stop                      lab-stop.sh: nothing of the lab left (it checks and says)
#   multi lab (3 nodes in the host's namespaces: every node has the host's hostname):
#     hostnames, batch-env, spank-env, no-drained-node, stop
#   package-install             the RPM of this Slurm (build-matrix-RELEASE/packages, made by the
#                               build phase) installed into a fresh root, a lab started from its
#                               payload alone: an srt job's environment and digest, doctor
#   stop-leaves-nothing         test-stop-clean.sh in both modes: jobs running, restart over
#                               them, stop; no process, namespace, link or port left
#
# Not here: test-launch-run.sh (the ctest launch fixture's end-to-end run) submits srt-job with
# --exclusive and no GPU request. From 24.11 on (22.05 does not) an exclusive job holds every
# GPU of its nodes implicitly, and its steps do not get those ("except those implicitly
# requested when a job is exclusive", srun(1)): a worker step sees SLURM_JOB_GPUS but no
# ROCR_VISIBLE_DEVICES, and the plugin refuses it ("Slurm granted node GPUs ... but set no GPU
# visibility variable"). srt-helper run/submit request the GPUs, so run-1p1d-twin does not meet it.
#
# Prints a line per test (passed, failed, skipped) and the Slurm version; a failed test's output
# in full. Exits 0 when none failed (a skip is not a failure, but the summary names it).
# Environment: SRT_MATRIX_LAB_PORT (first TCP port, default 18917; the labs use it up to +25),
# SRT_MATRIX_LAB_DIR (default /tmp/lab-matrix: a fresh tmpfs inside a root filesystem),
# LAB_CONTAINER_RUNTIME (the lab profile's container runtime, lab-profile.sh; default bwrap).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
build=${1:?usage: matrix-lab.sh BUILD_DIR}
build=$(cd "$build" && pwd) || exit 1
port=${SRT_MATRIX_LAB_PORT:-18917}
labs=${SRT_MATRIX_LAB_DIR:-/tmp/lab-matrix}
(( EUID == 0 )) || lab_die "the lab needs root"

plugin=$build/spank/spank_srt.so
impl=$build/spank/srt_spank_impl.so
helper=$build/helper/srt-helper
job=$build/helper/srt-job
# No SRT_ variable of the caller's reaches the tests (rootfs.sh passes them through): the tasks
# must see only what the plugin sets. Each test gets what ctest gives it (CMakeLists.txt,
# launch.cmake): SRT_HELPER, and SRT_JOB for the launch tests.
while read -r v; do unset "$v"; done < <(compgen -e | grep '^SRT_' || true)
for f in "$plugin" "$impl" "$helper" "$job"; do
  [[ -x "$f" || -r "$f" ]] || lab_die "$f not built (the unit_tests target builds it)"
done
slurm=$(slurmd -V | awk '{ print $2 }')
echo "matrix lab: Slurm $slurm, $(. /etc/os-release && echo "$PRETTY_NAME"), build $build"

declare -a names results secs
t_all=$(date +%s)
record() {  # NAME RESULT SECONDS
  names+=("$1"); results+=("$2"); secs+=("$3")
  printf '[matrix-lab] %-30s %-7s %4d s\n' "$1" "$2" "$3"
}
# run NAME TIMEOUT COMMAND...: 0 passed, 77 skipped (the tests' SKIP_RETURN_CODE), else failed.
run() {
  local name=$1 limit=$2 t0 rc=0 out
  shift 2
  out=$(mktemp)
  t0=$(date +%s)
  if [[ "$(type -t "$1")" == function ]]; then
    ("$@") >"$out" 2>&1 || rc=$?   # a check of this script's own, bounded by itself
  else
    timeout -k 10 "$limit" "$@" >"$out" 2>&1 || rc=$?
  fi
  case $rc in
    0) record "$name" passed $(( $(date +%s) - t0 )) ;;
    77) record "$name" skipped $(( $(date +%s) - t0 )); sed 's/^/    /' "$out" | tail -n 3 ;;
    *) record "$name" failed $(( $(date +%s) - t0 ))
       echo "--- $name (exit $rc$( (( rc == 124 )) && echo ", timed out after $limit s")):"
       sed 's/^/    /' "$out" ;;
  esac
  rm -f "$out"
  return "$rc"
}
# no_drained BASE: every node of the lab idle (nothing drained, down or still completing).
no_drained() {
  local states end=$(( $(date +%s) + 30 ))
  # shellcheck disable=SC1091
  source "$1/env.sh"
  while :; do
    states=$(sinfo -h -N -o '%N %T' | sort -u)
    echo "$states"
    grep -qvE ' (idle|planned)$' <<<"$states" || return 0   # planned: idle, set aside by backfill (24.11+)
    (( $(date +%s) < end )) || break
    sleep 1   # a node still completing the last job
  done
  sinfo -N -o '%N %T %E' >&2
  echo "FAIL: nodes not idle at the end" >&2
  return 1
}

# run_twin BASE RECIPE: `srt-helper run` of a lab twin end to end, as a user submits one: the
# job submitted with the profile's GPU directive (--gres=gpu:8), followed, its results collected
# and judged (exit 0 only for COMPLETED 0:0 and a valid result per concurrency), then nothing of
# it left on any node. The lab profile's runtime (bwrap) works here: bubblewrap run by root
# needs no user namespace.
run_twin() {
  local base=$1 recipe=$src/$2 out rc=0 jid
  # shellcheck disable=SC1091
  source "$base/env.sh"
  out=$(mktemp -d "$base/work-twin.XXXX")
  PATH="$base/bin:$PATH" SRTSLURM_CONFIG="$base/etc/srt/cluster.yaml" \
    "$helper" run --profile "$base/etc/srt/cluster.yaml" --results "$out/collected" --no-pictures \
    --timeout 300 "$recipe" > "$out/run.out" 2>&1 || rc=$?
  cat "$out/run.out"
  jid=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$out/run.out")
  [[ -n "$jid" ]] || lab_fail "srt-helper run submitted no job"
  (( rc == 0 )) || { cat "$base/results/$jid/status.json" 2>/dev/null; lab_fail "srt-helper run exited $rc"; }
  lab_assert_job_clean "$jid" 10
  echo "PASS: srt-helper run of $(basename "$recipe"): job $jid COMPLETED, every point valid"
}

# snapshot_deleted BASE: the recipe file deleted right after sbatch returns changes nothing: the
# job's steps run from the snapshot the plugin attached at submit (spank-env rewrites the file;
# this removes it), on every node, with each node's own SRT_NODE_INDEX.
snapshot_deleted() {
  local base=$1 work jid result
  # shellcheck disable=SC1091
  source "$base/env.sh"
  work=$(mktemp -d "$base/work-snapshot.XXXX")
  cp "$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" "$work/recipe.yaml"
  jid=$(sbatch --parsable -N2 --srt-recipe="$work/recipe.yaml" -o "$work/job-%j.out" \
        --wrap 'sleep 1; srun -N2 -l printenv SRT_NODE_INDEX')
  rm "$work/recipe.yaml"
  result=$(lab_wait_job "$jid" 60) || lab_fail "job $jid: $result; $(cat "$work/job-$jid.out" 2>/dev/null)"
  echo "$result"; cat "$work/job-$jid.out"
  [[ "$(sort "$work/job-$jid.out" | tr '\n' ' ')" == "0: 0 1: 1 " ]] || lab_fail "the steps did not see SRT_NODE_INDEX 0 and 1"
  echo "PASS: job $jid ran from its snapshot, the recipe file gone"
}

spank_line() {  # BASE: the plugstack line tests/cluster/CMakeLists.txt gives its labs
  echo "$plugin impl=$impl profile=$1/etc/srt/cluster.yaml cache_dir=$1/cache topology=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml"
}
lab() {  # MODE PORT TEST...: a 3-node lab in MODE, the tests against it, the checks, stop
  local mode=$1 p=$2 base=$labs/$1 test name script args
  shift 2
  if ! run "$mode.start" 120 env SRT_HELPER="$helper" "$HERE/lab-start.sh" --base "$base" --port "$p" --mode "$mode" --nodes 3 \
       --timeout 60 --srt-profile --spank "$(spank_line "$base")"; then
    bash "$HERE/lab-stop.sh" --base "$base" --port "$p" --quiet || true
    return
  fi
  for test in "$@"; do
    IFS='|' read -r name script args <<<"$test"
    local -a env=(SRT_HELPER="$helper")
    [[ "$script" == launch-* ]] && env+=(SRT_JOB="$job")
    # shellcheck disable=SC2086  # the arguments after the script are words
    run "$mode.$name" 600 env "${env[@]}" "$HERE/test-$script.sh" "$base" $args
  done
  [[ "$mode" == netns ]] && run "$mode.snapshot-recipe-deleted" 90 snapshot_deleted "$base"
  [[ "$mode" == netns ]] && run "$mode.run-1p1d-twin" 600 run_twin "$base" recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml
  run "$mode.no-drained-node" 60 no_drained "$base"
  run "$mode.stop" 120 "$HERE/lab-stop.sh" --base "$base" --port "$p"
}

# "name|script|args": the netns lab's tests, then the multi lab's.
lab netns "$port" "hostnames|hostnames|" "batch-env|batch-env|" "user-job|user-job|" \
  "spank-submit|spank-submit|" "spank-env|spank-env|" "spank-env-user|spank-env-user|" \
  "spank-nodefail|spank-nodefail|"
lab multi $(( port + 10 )) "hostnames|hostnames|" "batch-env|batch-env|" "spank-env|spank-env|"
# The RPM this Slurm's matrix build made (scripts/test.sh's build phase), its payload installed
# into a fresh root and a lab started from it alone (test-package-install.sh, as on the host).
if compgen -G "$build/packages/slurm-spank-srt-*.rpm" >/dev/null; then
  run package-install 300 "$src/tests/packaging/test-package-install.sh" --packages "$build/packages" \
    --base "$labs/pkg" --port $(( port + 24 )) --fixture "$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml"
else
  record package-install skipped 0
  echo "    no RPM in $build/packages: the build phase (ctest -L packaging there) makes it"
fi
run stop-leaves-nothing 300 "$HERE/test-stop-clean.sh" --base "$labs/stop-clean" --port $(( port + 20 )) \
  --spank "$(spank_line "$labs/stop-clean")"

n_failed=0 n_skipped=0 passed=() skipped=() failed=()
for i in "${!names[@]}"; do
  case ${results[$i]} in
    passed) passed+=("${names[$i]}") ;;
    skipped) skipped+=("${names[$i]}"); n_skipped=$(( n_skipped + 1 )) ;;
    *) failed+=("${names[$i]}"); n_failed=$(( n_failed + 1 )) ;;
  esac
done
echo "matrix lab, Slurm $slurm: ${#passed[@]} passed, $n_skipped skipped, $n_failed failed in $(( $(date +%s) - t_all )) s"
echo "  ran and passed: ${passed[*]:-none}"
(( n_skipped )) && echo "  skipped: ${skipped[*]}"
(( n_failed )) && echo "  FAILED: ${failed[*]}"
# ctest's closing line, which scripts/test.sh sums over every run
total=${#names[@]}
echo "$(( total ? (total - n_failed) * 100 / total : 0 ))% tests passed, $n_failed tests failed out of $total"
(( n_failed == 0 && ${#passed[@]} > 0 ))

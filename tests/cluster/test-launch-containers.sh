#!/usr/bin/env bash
# test-launch-containers.sh BASE CASE: the lab's jobs in real podman containers. For the
# test the lab's profile (the one the plugin on every node reads) becomes the podman one
# (lab-profile.sh with LAB_CONTAINER_RUNTIME=podman and lab-image.sh's image); it is put back on
# exit. Each case runs one of the lab's own tests (or kills the launcher) and then checks that
# no container labelled with the job is left (`podman ps -a`; the lab's nodes share this host's
# podman storage, so this is every node) and that no process of the job is left on any node.
#   run        the 2P1D lab twin end to end (test-launch-run.sh: health, /workers gate, port
#              audit, every result), each step in its own srt-<job>-<step> container
#   scancel    scancel mid-sweep (test-launch-scancel.sh); the launcher cannot run its clean-up
#              step in a cancelled job: the Epilog's turn
#   timelimit  the time-limit warning mid-sweep (test-launch-timelimit.sh)
#   killed     a worker SIGKILLed while it loads (test-launch-killed.sh)
#   docker     the 1P1D lab twin with container_runtime docker: Debian's dockerd, one per node in
#              the node's namespaces (lab-docker.sh), the same image loaded into each
#   launcher   the launcher and every step's podman client SIGKILLed mid-sweep: nothing tears
#              down, no TERM reaches a container, the containers live on, and the lab's Epilog
#              (srt-epilog) removes them
#   docker-launcher  the same with docker
#   planted    a container plants links at every log name (test-launch-planted-logs.sh): none is
#              followed; docker-planted the same with docker
#   unresolvable  an image name podman cannot resolve: preflight stops the job, and its one-line
#              reason carries podman's own words, each role once and the log folder once
#   rootless   the non-root lab user's job under rootless podman (the containers live in that
#              user's own store, which root's `podman ps` does not show), its launcher and podman
#              clients SIGKILLed mid-sweep and the job scancelled: the Epilog, as root, removes
#              them from the user's store (docs/security.md "Container runtimes"); with
#              container_user: job each runs as the user itself, on the host and inside (keep-id)
# Skips (77) without podman or runc (docker: without dockerd).
set -euo pipefail
# shellcheck source=launch-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/launch-lib.sh"
launch_test_init "${1:-}"
case=${2:?usage: test-launch-containers.sh BASE run|docker|scancel|timelimit|killed|launcher|docker-launcher|rootless|planted|docker-planted}
here=$(dirname "${BASH_SOURCE[0]}")
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then echo "SKIP: podman or runc is not installed"; exit 77; fi
[[ -x "$LAB_BASE/etc/epilog" ]] || lab_fail "the lab has no Epilog (lab-start.sh --epilog)"
podman=(podman --runtime runc)

read -r image image_tar < <(bash "$here/lab-image.sh" --runtime-arg --runtime --runtime-arg runc) ||
  lab_fail "cannot make the lab's image"
profile="$LAB_BASE/etc/srt/cluster.yaml"
cp "$profile" "$LAB_BASE/work/cluster.yaml.saved" 2>/dev/null || { mkdir -p "$LAB_BASE/work"; cp "$profile" "$LAB_BASE/work/cluster.yaml.saved"; }
restore() {
  launch_cancel_job
  # A failed case must not leave containers to the lab's next tests (the Epilog reads the
  # restored profile and would not look for them).
  [[ -z "${jid:-}" ]] || lab_wait_job "$jid" 60 > /dev/null || true
  [[ -z "${jid:-}" ]] || "${podman[@]}" ps --all --quiet --filter "label=srt.job=$jid" | xargs -r "${podman[@]}" rm --force > /dev/null
  [[ ${runtime:-} != docker ]] || bash "$here/lab-docker.sh" stop "$LAB_BASE" || echo "lab-docker.sh stop failed" >&2
  cp "$LAB_BASE/work/cluster.yaml.saved" "$profile"
  [[ -z "${mounted_mqueue:-}" ]] || umount /dev/mqueue || echo "cannot unmount /dev/mqueue" >&2
  [[ -z "${made_mqueue:-}" ]] || rmdir /dev/mqueue || echo "cannot remove /dev/mqueue" >&2
  # Rootless podman keeps a pause process holding the user's namespace (catatonit -P) past the
  # job; it is ours to end, by the pid it wrote beside the user's run root.
  if [[ -n "${pause_pid_file:-}" ]] && pause=$(cat "$pause_pid_file" 2>/dev/null) && [[ $pause =~ ^[0-9]+$ ]]; then
    kill "$pause" 2>/dev/null || true
  fi
}
trap restore EXIT
LAB_CONTAINER_RUNTIME=podman bash "$here/lab-profile.sh" "$LAB_BASE" > /dev/null
runtime=podman
if [[ $case == docker* ]]; then
  runtime=docker
  # Debian's Docker: a daemon per node (lab-docker.sh), reached at one socket path that each node
  # binds to its own daemon. The limits are the daemon's own: no --ulimit.
  command -v dockerd >/dev/null || { echo "SKIP: dockerd is not installed"; exit 77; }
  bash "$here/lab-docker.sh" start "$LAB_BASE" "$image_tar"
  sed -i 's/^container_runtime: podman$/container_runtime: docker/; /^container_runtime_args:/d; /^container_run_args:/d' "$profile"
  echo "container_runtime_args: [--host, 'unix:///run/srt-lab-docker/docker.sock']" >> "$profile"
  # The lab's daemons are root's, as most sites' are: the profile says in so many words that its
  # job users are trusted as root (docs/security.md), or every job is refused at launch.
  echo "docker_users_are_root: true" >> "$profile"
fi
echo "profile: $(grep '^container_runtime:' "$profile"), image $image"

# Every node's containers of job $1 (the lab's podman nodes share this host's store; each docker
# node has its own daemon).
containers_of() {
  if [[ $runtime == podman ]]; then
    "${podman[@]}" ps --all --filter "label=srt.job=$1" --format '{{.Names}} {{.Status}}'
    return
  fi
  local node
  for node in $(scontrol show hostnames "$LAB_NODES"); do
    bash "$here/lab-docker.sh" docker "$LAB_BASE" "$node" ps --all --filter "label=srt.job=$1" --format '{{.Names}} {{.Status}}'
  done
}
assert_no_containers() {  # JOBID SECONDS
  local end=$(( $(date +%s) + $2 )) left
  while :; do
    left=$(containers_of "$1")
    [[ -z "$left" ]] && { echo "no container of job $1 on any node"; return 0; }
    (( $(date +%s) < end )) || break
    sleep 0.5
  done
  lab_fail "containers of job $1 left: $left"
}

# Runs one of the lab's tests with the podman profile; its job id from its "job N" line.
run_lab_test() {
  local out="$LAB_BASE/work/podman-$case.out" rc=0
  bash "$here/$1" "$LAB_BASE" "${@:2}" 2>&1 | tee "$out" || rc=$?
  jid=$(grep -m1 -oE '^job [0-9]+' "$out" | cut -d' ' -f2 || true)
  [[ -n "$jid" ]] || lab_fail "$1 started no job"
  (( rc == 0 )) || lab_fail "$1 failed under podman (job $jid)"
  # The launcher's teardown looked on every node; after scancel its srun cannot run any more
  # (the job is gone) and the Epilog is what looks.
  if [[ $case != scancel ]]; then
    grep -q "clean-containers: node" "$LAB_BASE/work/launch-$jid.out" || lab_fail "the launcher ran no clean-containers"
  fi
}

t0=$(lab_now)
case $case in
  run) run_lab_test test-launch-run.sh recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml ;;
  docker) run_lab_test test-launch-run.sh recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml ;;
  planted|docker-planted) run_lab_test test-launch-planted-logs.sh ;;
  scancel) run_lab_test test-launch-scancel.sh ;;
  timelimit) run_lab_test test-launch-timelimit.sh ;;
  killed) run_lab_test test-launch-killed.sh ;;
  unresolvable)
    # An image name podman cannot resolve (the lab's registries.conf names no search registry,
    # as a site's without a mirror): preflight stops the job, and the reason carries podman's own
    # words once, not every role's paths.
    recipe="$LAB_BASE/work/unresolvable.yaml"
    sed 's#rocm/atom-dev:nightly_202608251555#rocm/atom-dev:srt-lab-no-such-tag#g' \
      "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml" > "$recipe"
    grep -q 'srt-lab-no-such-tag' "$recipe" || lab_fail "could not change the recipe's image"
    jid=$(launch_submit "$recipe")
    echo "job $jid"
    launch_expect_failed "$jid" 120 "preflight: prefill on " "did not resolve" "(no worker was started)"
    launch_expect_class "$jid" image
    launch_expect_reason_line "$jid" prefill decode
    ;;
  launcher|docker-launcher)
    jid=$(SRT_STANDIN_TOKEN_MS=50 launch_submit "$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml")
    echo "job $jid"
    launch_wait_state "$jid" benchmark 120 || { launch_show "$jid"; lab_fail "never reached the benchmark"; }
    # prefill, decode, router and the first point's benchmark: four srt-<job>-<step> containers.
    for _ in $(seq 1 60); do
      running=$(containers_of "$jid")
      [[ $(grep -c "^srt-$jid-[0-9]* Up" <<<"$running") -ge 4 ]] && break
      sleep 0.5
    done
    echo "running containers of job $jid:"; echo "  ${running//$'\n'/$'\n'  }"
    [[ $(grep -c "^srt-$jid-[0-9]* Up" <<<"$running") -ge 4 ]] ||
      lab_fail "expected the job's workers, router and benchmark in srt-$jid-<step> containers"
    launcher=
    for pid in $(launch_job_pids "$jid"); do
      if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q 'srt-helper launch'; then launcher=$pid; fi
    done
    [[ -n "$launcher" ]] || lab_fail "no srt-helper launch process of job $jid"
    # Every step's runtime client too, outright, as when srun or the node's stepd is KILLed: no
    # TERM reaches a container (the client forwards TERM; docker's daemon would then remove a
    # container that exits by itself), so every container of the job outlives its client.
    clients=
    for pid in $(launch_job_pids "$jid"); do
      first=$(tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | head -1) || continue
      [[ ${first##*/} == "$runtime" ]] && clients+=" $pid"
    done
    [[ -n "$clients" ]] || lab_fail "no $runtime client of job $jid"
    # shellcheck disable=SC2086
    kill -KILL "$launcher" $clients
    echo "launcher $launcher and $runtime clients$clients SIGKILLed"
    result=$(lab_wait_job "$jid" 120) || true
    echo "job: $result, $(lab_elapsed "$t0") s"
    # slurmd runs the Epilog once the job's steps are gone on the node.
    assert_no_containers "$jid" 60
    # It was the Epilog (the lab's wrapper keeps its output) that removed them: the job ends
    # within a second of its launcher, and the Epilog runs at once.
    grep -h "of job $jid" "$LAB_BASE/log/epilog.log" || lab_fail "the Epilog said nothing of job $jid"
    grep -q "removed [0-9]* container(s) of job $jid" "$LAB_BASE/log/epilog.log" ||
      lab_fail "the Epilog removed no container of job $jid"
    ;;
  rootless)
    # Rootless podman needs newuidmap/newgidmap (uidmap) and a subordinate id range for the user
    # (useradd gives one from /etc/login.defs SUB_UID_*). Its store is the user's own
    # (~/.local/share/containers); the lab's nodes share this host's file systems, so it is every
    # node's.
    command -v newuidmap >/dev/null || { echo "SKIP: newuidmap (uidmap) is not installed"; exit 77; }
    user=${LAB_USER:-srtlab}
    work=$(bash "$here/lab-user.sh" --user "$user" --base "$LAB_BASE")
    # useradd gives the user a range (/etc/login.defs SUB_UID_*); a user made before that was set
    # up gets one here, as an admin would with usermod.
    grep -q "^$user:" /etc/subuid || usermod --add-subuids 100000-165535 "$user"
    grep -q "^$user:" /etc/subgid || usermod --add-subgids 100000-165535 "$user"
    # `--ipc host` makes rootless podman bind the host's /dev/mqueue (root's mounts a new one).
    # systemd mounts it on every node (dev-mqueue.mount); this machine's sandbox has none, so the
    # case mounts it as systemd would, and unmounts it after.
    if ! mountpoint -q /dev/mqueue; then
      [[ -d /dev/mqueue ]] || made_mqueue=1
      mkdir -p /dev/mqueue
      mount -t mqueue mqueue /dev/mqueue
      mounted_mqueue=1
    fi
    podman=(lab_as_user "$user" podman --runtime runc)
    pause_pid_file="$(dirname "$("${podman[@]}" info --format '{{.Store.RunRoot}}')")/libpod/tmp/pause.pid"
    "${podman[@]}" image exists "$image" || "${podman[@]}" import --quiet "$image_tar" "$image" > /dev/null
    lab_recipe_images "$LAUNCH_SRC" | while read -r name; do "${podman[@]}" tag "$image" "$name"; done
    # The job's results and logs in a directory the user owns, as a site's shared results root.
    lab_as_user "$user" mkdir -p "$work/results"
    sed -i "s#^results_root: .*#results_root: $work/results#" "$profile"
    # As the job's user (pyxis's way): rootless podman must map the user to itself inside
    # (--userns=keep-id), or the engine would run as one of the user's subordinate ids.
    echo "container_user: job" >> "$profile"
    launch_job_dir() { echo "$work/results/$1"; }
    recipe=$LAUNCH_SRC/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml
    nodes=$("$SRT_HELPER" nodes --profile "$profile" "$recipe")
    jid=$(lab_as_user "$user" env PATH="$LAB_BASE/bin:$PATH" SRTSLURM_CONFIG="$profile" SRT_STANDIN_TOKEN_MS=50 \
          sbatch --parsable --exclusive --srt-recipe="$recipe" -N"$nodes" -o "$work/launch-%j.out" "$SRT_JOB")
    echo "job $jid of $user"
    launch_wait_state "$jid" benchmark 120 || { cat "$work/launch-$jid.out"; lab_fail "never reached the benchmark"; }
    running=$(containers_of "$jid")
    echo "$user's containers of job $jid:"; echo "  ${running//$'\n'/$'\n'  }"
    [[ $(grep -c "^srt-$jid-[0-9]* Up" <<<"$running") -ge 3 ]] ||
      { cat "$work/launch-$jid.out"; lab_fail "expected the job's workers and router in $user's store"; }
    [[ -z "$(podman --runtime runc ps --all --quiet --filter "label=srt.job=$jid")" ]] ||
      lab_fail "root's store holds containers of $user's job"
    # Each container's processes run as the user itself on the host, and as its uid inside.
    uid=$(id -u "$user")
    while read -r name _; do
      owners=$("${podman[@]}" top "$name" huser user | tail -n +2 | sort -u | tr -s ' ' | tr '\n' ';')
      echo "  $name runs as (host user, user inside): $owners"
      [[ $owners =~ ^(($user|$uid)\ ($user|$uid)\;)+$ ]] || lab_fail "$name does not run as $user on the host and inside: $owners"
    done <<<"$(grep "^srt-$jid-[0-9]* Up" <<<"$running")"
    # The launcher and every podman client of the user SIGKILLed, as when srun or the node's
    # stepd is KILLed: no TERM reaches a container (the client forwards TERM, and a container that
    # exits by itself is removed by its own --rm), so the containers outlive the job in the
    # user's store and only the Epilog can remove them.
    launcher='' clients=''
    for pid in $(launch_job_pids "$jid"); do
      cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null) || continue
      [[ $cmd == *"srt-helper launch"* ]] && launcher=$pid
      first=${cmd%% *}
      [[ ${first##*/} == podman ]] && clients+=" $pid"
    done
    [[ -n "$launcher" && -n "$clients" ]] || lab_fail "no launcher ($launcher) or podman client ($clients) of job $jid"
    # shellcheck disable=SC2086
    kill -KILL "$launcher" $clients
    echo "launcher $launcher and podman clients$clients SIGKILLed"
    scancel "$jid" 2>/dev/null || true
    result=$(lab_wait_job "$jid" 120) || true
    echo "job: $result, $(lab_elapsed "$t0") s"
    assert_no_containers "$jid" 60
    grep -q "removed [0-9]* container(s) of job $jid" "$LAB_BASE/log/epilog.log" ||
      { grep -h "of job $jid" "$LAB_BASE/log/epilog.log"; lab_fail "the Epilog removed no container of job $jid"; }
    grep -h "of job $jid" "$LAB_BASE/log/epilog.log"
    ;;
  *) lab_fail "unknown case $case" ;;
esac
assert_no_containers "$jid" 30
launch_assert_clean "$jid" 15
echo "PASS: $runtime $case in $(lab_elapsed "$t0") s"

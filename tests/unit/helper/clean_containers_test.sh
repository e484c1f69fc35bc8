#!/bin/bash
# srt-helper clean-containers' own answers without containers: a job id that is not
# one (exit 2, said), a profile whose runtime starts none (exit 0, said), a runtime not installed
# on the node (exit 0, said), and this host's podman with none of the job's (exit 0); as root, a
# job user's rootless store asked as that user. The lab's container tests show it removing real ones.
#   clean_containers_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect CODE PATTERN ARGS...: clean-containers ARGS, under `env "${envs[@]}"`, exits CODE, its
# output matching PATTERN.
expect() {
  local want=$1 pattern=$2 out rc
  shift 2
  out=$(env "${envs[@]}" "$helper" clean-containers "$@" 2>&1)
  rc=$?
  if [[ $rc != "$want" ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: clean-containers $*: want exit $want matching '$pattern', got $rc: $out"
    failures=$((failures + 1))
  else
    echo "as expected ($rc): $out"
  fi
}

envs=(SLURM_JOB_ID=)
expect 2 "--job-id '12x' is not a job id" --job-id 12x
expect 2 "is not a job id" --runtime podman
printf 'cluster: test\ncontainer_runtime: pyxis\n' >"$tmp/pyxis.yaml"
expect 0 "container_runtime is pyxis: no container of ours" --job-id 7 --profile "$tmp/pyxis.yaml"
mkdir -p "$tmp/empty-bin"
envs=(SLURM_JOB_ID= PATH="$tmp/empty-bin")
expect 0 "node n1: docker is not installed here" --job-id 7 --runtime docker --node n1
envs=(SLURM_JOB_ID=)
if command -v podman >/dev/null; then
  expect 0 "node n1: no container of job 424242" --job-id 424242 --runtime podman --node n1
else
  echo "skipped: podman is not installed (scripts/install-deps.sh installs it)"
fi
# docs/security.md "Container runtimes": rootless podman keeps a user's containers in that user's store, which
# root's `podman ps` does not see. As root in an Epilog (SLURM_JOB_UID set), clean-containers
# also asks the job user's store, as that user and with nothing of the caller's environment.
# A stand-in podman shows a container of job 7 only to uid 65534 until that uid removes it.
if (( EUID == 0 )) && getent passwd 65534 >/dev/null; then
  mkdir -p "$tmp/fake"
  chmod 755 "$tmp" "$tmp/fake"
  mkdir -m 1777 "$tmp/state"
  install -m 666 /dev/null "$tmp/state/calls"  # both uids append to it
  cat >"$tmp/fake/podman" <<SH
#!/bin/sh
echo "uid=\$(id -u) groups=\$(id -G) args=\$* \$(env | sort | tr '\n' ' ')" >> $tmp/state/calls
# The global options before the subcommand (--root DIR --runroot DIR [--storage-driver D]).
while [ "\${1#--}" != "\$1" ]; do shift 2; done
case "\$1" in
  ps) [ "\$(id -u)" = 65534 ] && [ ! -e $tmp/state/removed ] && echo "0123456789abcdef srt-7-0" ;;
  rm) [ "\$(id -u)" = 65534 ] && [ ! -e $tmp/state/survives ] && touch $tmp/state/removed ;;
esac
exit 0
SH
  chmod 755 "$tmp/fake/podman"
  envs=(SLURM_JOB_ID= SLURM_JOB_UID=65534 SRT_LEAK=1 PATH="$tmp/fake:/usr/bin:/bin")
  expect 0 "removed 1 container\(s\) of job 7 in uid 65534's store: srt-7-0" --job-id 7 --runtime podman --node n1
  grep -q '^uid=65534 ' "$tmp/state/calls" || { echo "FAIL: the user's store was not asked as uid 65534"; failures=$((failures + 1)); }
  if grep '^uid=65534 ' "$tmp/state/calls" | grep -q SRT_LEAK; then
    echo "FAIL: the caller's environment reached the user's podman"; failures=$((failures + 1))
  else
    echo "as expected: uid 65534's podman ran without the caller's environment"
  fi
  # Only the admin's configuration: containers.conf(5) reads no other file with CONTAINERS_CONF
  # set, so a runtime, conmon or hook the user's own containers.conf names never runs here. The
  # store is named on the command line, and no supplementary group of the user's is kept.
  user_call=$(grep '^uid=65534 ' "$tmp/state/calls" | head -n1)
  for want in "CONTAINERS_CONF=/" "CONTAINERS_STORAGE_CONF=/" "args=--root /nonexistent/.local/share/containers/storage "; do
    if [[ $user_call != *"$want"* ]]; then
      echo "FAIL: the user's podman ran without '$want': $user_call"; failures=$((failures + 1))
    fi
  done
  if [[ $user_call == *"CONTAINERS_CONF=/nonexistent"* || $user_call == *"XDG_CONFIG_HOME"* ]]; then
    echo "FAIL: the user's podman was pointed at the user's configuration: $user_call"; failures=$((failures + 1))
  fi
  [[ $user_call == *"groups=65534 args="* ]] || { echo "FAIL: supplementary groups kept: $user_call"; failures=$((failures + 1)); }
  # A container that survives its removal in the user's own store: logged, exit 0, no drain.
  rm -f "$tmp/state/removed"
  touch "$tmp/state/survives"
  expect 0 "job 7: what is left in uid 65534's store is the user's own to remove; the node stays in service" \
    --job-id 7 --runtime podman --node n1
else
  echo "skipped: the job user's store case needs root and uid 65534"
fi
(( failures == 0 )) && echo "PASS: clean-containers"
exit $(( failures > 0 ))

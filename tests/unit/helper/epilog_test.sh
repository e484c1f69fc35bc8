#!/bin/bash
# The shipped Epilog (srt-epilog) as slurmd runs it: `env -i` with only what slurmd gives it, no
# PATH (docs/security.md "Container runtimes"). A job without the plugin's snapshot is not looked at; an srt
# job's runtime is run by the absolute path that was found (a docker only in /usr/local/bin was
# found there and then run from /bin:/usr/bin); a runtime that cannot list containers does not
# drain the node; podman with none of the job's answers and exits 0.
#   epilog_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1
epilog=$(dirname "$helper")/srt-epilog
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ -x $epilog ]] || { echo "FAIL: no $epilog"; exit 1; }

# expect CODE PATTERN ENV...: the Epilog under `env -i ENV...` exits CODE, its output matching
# PATTERN ("^$": says nothing).
expect() {
  local want=$1 pattern=$2 out rc
  shift 2
  out=$(env -i "$@" /bin/sh "$epilog" 2>&1)
  rc=$?
  if [[ $rc != "$want" ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: Epilog with $*: want exit $want matching '$pattern', got $rc: $out"
    failures=$((failures + 1))
  else
    echo "as expected ($rc): ${out:-(nothing)}"
  fi
}

# A docker that cannot answer: its daemon's socket does not exist.
printf 'cluster: test\ncontainer_runtime: docker\ncontainer_runtime_args: [-H, "unix://%s/none.sock"]\n' \
  "$tmp" >"$tmp/docker.yaml"
# L3: not an srt job (no snapshot): nothing run, nothing said, never a drain.
out=$(env -i SLURM_JOB_ID=7 SRTSLURM_CONFIG="$tmp/docker.yaml" /bin/sh "$epilog" 2>&1)
rc=$?
if [[ $rc == 0 && -z $out ]]; then echo "as expected: a job without SPANK_SRT_SNAPSHOT is left alone"
else echo "FAIL: a job without SPANK_SRT_SNAPSHOT: exit $rc: $out"; failures=$((failures + 1)); fi
docker=$(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v docker)
if [[ -n $docker ]]; then
  # M2: the docker found is the docker run; a daemon that does not answer is said, not drained.
  expect 0 "$docker cannot list the containers of job 7" SLURM_JOB_ID=7 SPANK_SRT_SNAPSHOT=x SRTSLURM_CONFIG="$tmp/docker.yaml"
else
  echo "skipped: docker is not installed (the absolute-path case needs a runtime)"
fi
if command -v podman >/dev/null; then
  printf 'cluster: test\ncontainer_runtime: podman\n' >"$tmp/podman.yaml"
  expect 0 "no container of job 424242" SLURM_JOB_ID=424242 SPANK_SRT_SNAPSHOT=x SRTSLURM_CONFIG="$tmp/podman.yaml" \
    SLURMD_NODENAME=n1
else
  echo "skipped: podman is not installed"
fi
(( failures == 0 )) && echo "PASS: srt-epilog"
exit $(( failures > 0 ))

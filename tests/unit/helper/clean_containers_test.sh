#!/bin/bash
# srt-helper clean-containers' own answers (issue 26) without containers: a job id that is not
# one (exit 2, said), a profile whose runtime starts none (exit 0, said), a runtime not installed
# on the node (exit 0, said), and this host's podman with none of the job's (exit 0). The lab's
# container tests show it removing real ones.
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
(( failures == 0 )) && echo "PASS: clean-containers"
exit $(( failures > 0 ))

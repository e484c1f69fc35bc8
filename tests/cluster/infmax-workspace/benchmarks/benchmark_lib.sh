#!/usr/bin/env bash
# Stand-in for InferenceX's benchmarks/benchmark_lib.sh, the part the lab's recipes and stand-in
# scripts use: check_env_vars NAME... fails naming each variable that is unset or empty, as
# InferenceX's does before a run starts. `source benchmark_lib.sh --validation-only` takes no
# other action (InferenceX's flag for "define the checks, run nothing").
check_env_vars() {
  local missing=() name
  for name in "$@"; do
    [[ -n "${!name:-}" ]] || missing+=("$name")
  done
  if (( ${#missing[@]} )); then
    echo "Error: required environment variables not set: ${missing[*]}" >&2
    return 1
  fi
}

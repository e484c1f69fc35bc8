#!/usr/bin/env bash
# run-fuzz.sh FUZZER WORKDIR SECONDS SEED_DIR...: one bounded libFuzzer run. WORKDIR/corpus
# collects what the run learns, WORKDIR/artifacts any crashing input (then: exit non-zero and the
# input printed as base64, so a CI log is enough to make it a regression file).
set -euo pipefail
fuzzer=$1 work=$2 seconds=$3
shift 3
mkdir -p "$work/corpus" "$work/artifacts"
rm -f "$work/artifacts"/*
rc=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$@" \
  >"$work/fuzz.log" 2>&1 || rc=$?
grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)|^Done ' "$work/fuzz.log" || true
shopt -s nullglob
found=("$work/artifacts"/*)
if (( rc != 0 || ${#found[@]} > 0 )); then
  tail -n 60 "$work/fuzz.log"
  for f in "${found[@]}"; do
    echo "finding: $f (base64 below; save it under tests/fuzz/regressions/ with the fix)"
    base64 -w 120 "$f"
  done
  exit 1
fi
echo "fuzz: $(basename "$fuzzer") ran ${seconds}s, corpus $(find "$work/corpus" -type f | wc -l) inputs, no finding"

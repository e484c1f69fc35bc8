#!/usr/bin/env bash
# shellcheck disable=SC2317  # the phase functions are called through phase "$@"
# The README's test command: installs what is missing, builds with warnings as errors, runs every
# test (unit, stand-ins, the real Slurm lab cluster, packaging), the benchmarks (numbers only),
# then the unit tests again under ASan+UBSan and the fuzz targets (clang, libFuzzer) for a bounded
# time, and prints ctest's summary and a time per phase.
#   scripts/test.sh [--quick]      --quick: skip the benchmarks, the sanitizer and fuzz builds
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${SRT_BUILD_DIR:-$src/build-ci}
asan_build=${SRT_ASAN_BUILD_DIR:-$src/build-asan}
fuzz_build=${SRT_FUZZ_BUILD_DIR:-$src/build-fuzz}
jobs=${SRT_JOBS:-$(nproc)}
quick=0
[ "${1:-}" = "--quick" ] && quick=1

declare -a phase_names phase_secs phase_rcs
failed=0
phase() {  # phase NAME COMMAND...
  local name=$1; shift
  local t0 rc
  t0=$(date +%s%N)
  echo "=== $name"
  "$@"; rc=$?
  phase_names+=("$name"); phase_secs+=("$(( ($(date +%s%N) - t0) / 1000000 ))"); phase_rcs+=("$rc")
  [ "$rc" -ne 0 ] && failed=1
  return 0
}

configure_and_build() {  # DIR extra-cmake-args...
  local dir=$1; shift
  cmake -S "$src" -B "$dir" -DSRT_WERROR=ON "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; return 1; }
  cmake --build "$dir" -j "$jobs" 2>&1 | grep -vE '^\[ *[0-9]+%\]|^(gmake|make)\[' || true
  cmake --build "$dir" -j "$jobs" >/dev/null 2>&1
}

# Only the fuzz targets (and srt_core under them): the rest of the project has its own builds.
# Four targets, 15 s each (a cache from before keeps its own SRT_FUZZ_SECONDS otherwise).
fuzz_configure_and_build() {
  CC=clang CXX=clang++ cmake -S "$src" -B "$fuzz_build" -DSRT_WERROR=ON -DSRT_FUZZ=ON -DSRT_FUZZ_SECONDS=15 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$fuzz_build.configure.log" 2>&1 || { cat "$fuzz_build.configure.log"; return 1; }
  cmake --build "$fuzz_build" -j "$jobs" --target fuzz_recipe fuzz_plan fuzz_kv fuzz_launch_json 2>&1 | grep -vE '^\[ *[0-9]+%\]|^(gmake|make)\[' || true
  cmake --build "$fuzz_build" -j "$jobs" --target fuzz_recipe fuzz_plan fuzz_kv fuzz_launch_json >/dev/null 2>&1
}

bench() {  # the table goes to the log and to $build/bench.txt (the README's table comes from it)
  bash "$src/tests/bench/bench-all.sh" "$build" --runs 30 2>&1 | tee "$build/bench.txt"
  return "${PIPESTATUS[0]}"
}

ctest_log=$(mktemp)
trap 'rm -f "$ctest_log"' EXIT
run_ctest() {  # DIR LABEL [ctest args...]
  local dir=$1 label=$2
  shift 2
  (cd "$dir" && ctest -L "$label" --output-on-failure --timeout 900 "$@") 2>&1 | tee -a "$ctest_log"
  return "${PIPESTATUS[0]}"
}

mkdir -p "$build"
phase deps bash "$src/scripts/install-deps.sh"
phase build configure_and_build "$build"
for label in unit standins kv packaging; do
  phase "ctest $label" run_ctest "$build" "$label"
done
# The installed-package lab test reuses the packages the packaging phase built (-FS: do not
# rebuild them as a fixture setup), and it already ran there: skip it here.
phase "ctest cluster" run_ctest "$build" cluster -FS packages -E '^cluster\.package-install$'

if [ "$quick" = 0 ]; then
  phase bench bench
  mkdir -p "$asan_build"
  phase "build asan+ubsan" configure_and_build "$asan_build" -DSRT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  phase "ctest unit (asan+ubsan)" run_ctest "$asan_build" unit
  mkdir -p "$fuzz_build"
  phase "build fuzz (clang)" fuzz_configure_and_build
  phase "ctest fuzz" run_ctest "$fuzz_build" fuzz
fi

echo
echo "=== summary"
printf '%-28s %10s  %s\n' phase seconds result
total_ms=0
for i in "${!phase_names[@]}"; do
  r=ok; [ "${phase_rcs[$i]}" -ne 0 ] && r="FAILED (rc ${phase_rcs[$i]})"
  ms=${phase_secs[$i]}
  printf '%-28s %6d.%01d  %s\n' "${phase_names[$i]}" $((ms / 1000)) $((ms % 1000 / 100)) "$r"
  total_ms=$((total_ms + ms))
done
printf '%-28s %6d.%01d\n' total $((total_ms / 1000)) $((total_ms % 1000 / 100))
# One closing line over every ctest run, in the plain form CI reads.
passed=0; fails=0
while read -r _ f t; do
  passed=$((passed + t - f)); fails=$((fails + f))
done < <(sed -nE 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/x \1 \2/p' "$ctest_log")
[ "$failed" -ne 0 ] && [ "$fails" -eq 0 ] && fails=1  # a phase failed outside ctest (deps, build)
echo "tests: $passed passed, $fails failed"
if [ "$failed" -ne 0 ]; then
  bad=()
  for i in "${!phase_names[@]}"; do [ "${phase_rcs[$i]}" -ne 0 ] && bad+=("${phase_names[$i]}"); done
  list=$(printf '%s, ' "${bad[@]}")
  echo "FAILED phases: ${list%, } (each one's output is above, under === NAME)"
fi
exit "$failed"

#!/usr/bin/env bash
# What each srt-helper subcommand loads: the user-facing ones (validate, nodes, plan,
# doctor's help) load no ZeroMQ, cpp-httplib, OpenSSL or spdlog; those are the job-step module's
# (srt-helper-jobstep.so), which the job-step subcommands load, and only they. Read from ld.so's
# own account (LD_DEBUG=libs: each library it initialises), not from timing or /proc sampling.
# A module that cannot be loaded is a usage error naming it.
# Usage: library_closure_test.sh SRT_HELPER SOURCE_DIR
set -euo pipefail
helper=${1:?usage: library_closure_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: library_closure_test.sh SRT_HELPER SOURCE_DIR}
recipe=$src/recipes/dsv4/atom/mi355x-fp4/8k1k/disagg-2p1d-dpa-tp8.yaml
heavy='/(libzmq|libcpp-httplib|libssl|libcrypto|libspdlog|srt-helper-jobstep)[.-]'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The libraries ld.so initialised while running srt-helper ARGS (its exit status is not ours).
loaded() {
  LD_DEBUG=libs LD_DEBUG_OUTPUT=$work/ld "$helper" "$@" >/dev/null 2>&1 || true
  cat "$work"/ld.* | sed -n 's/.*calling init: //p' | sort -u
  rm -f "$work"/ld.*
}

for args in "validate $recipe" "nodes $recipe" "plan $recipe --nodelist n[1-3]" "doctor --help" "run --help"; do
  # shellcheck disable=SC2086  # the words of each case
  libs=$(loaded $args)
  grep -q 'libyaml-cpp' <<<"$libs" || fail "srt-helper $args: ld.so reported no libyaml-cpp either; the check sees nothing ($libs)"
  if bad=$(grep -E "$heavy" <<<"$libs"); then
    fail "srt-helper ${args%% *} loads the job-step libraries: $(tr '\n' ' ' <<<"$bad")"
  fi
  echo "ok: srt-helper ${args%% *}: $(wc -l <<<"$libs") libraries, none of the job-step ones"
done

for args in "launch --help" "kv-relay --help" "kv-watch --help"; do
  # shellcheck disable=SC2086
  libs=$(loaded $args)
  for want in srt-helper-jobstep libzmq libcpp-httplib; do
    grep -q "/$want[.-]" <<<"$libs" || fail "srt-helper ${args%% *} did not load $want"
  done
  echo "ok: srt-helper ${args%% *}: loads the job-step module"
done

# srt-helper without its module beside it or in the libexec directory.
cp "$helper" "$work/srt-helper"
rc=0
"$work/srt-helper" launch >"$work/out" 2>&1 || rc=$?
if [[ -e "$(sed -n 's/^SRT_LIBEXECDIR:[A-Z]*=//p' "$(dirname "$helper")/../CMakeCache.txt" 2>/dev/null)/srt-helper-jobstep.so" ]]; then
  echo "skip: the missing-module case (a srt-helper-jobstep.so is installed in the libexec directory)"
else
  [[ $rc == 2 ]] || fail "launch without its module exited $rc, want 2: $(cat "$work/out")"
  grep -q "srt-helper launch cannot load its module: .*srt-helper-jobstep.so" "$work/out" ||
    fail "launch without its module did not name it: $(cat "$work/out")"
  grep -q "install srt-spank's package whole" "$work/out" || fail "no remedy: $(cat "$work/out")"
  "$work/srt-helper" validate "$recipe" >/dev/null 2>&1 || fail "validate needs the module"
  echo "ok: without its module, launch is a usage error naming it and validate still works"
fi
echo "PASS"

# shellcheck shell=bash
# Sourced by the doctor script tests: run `srt-helper doctor --json` on a profile made of given
# lines (the fixture topology, no plugstack) and compare one check's line with what is expected.
# Needs helper, fixture and tmp set, and counts misses in failures; DOCTOR_SYSFS, when set, is
# the sysfs root doctor reads (a fake class/infiniband tree).

# doctor_line CHECK JSON PARTS: CHECK's line of doctor's JSON output as "STATUS MESSAGE", then
# " | FIX" (PARTS fix) and " | DETAIL / DETAIL ..." (PARTS details); "missing" without it.
doctor_line() {
  /usr/bin/python3 -c '
import json, sys
name, path, parts = sys.argv[1:4]
c = [c for c in json.load(open(path))["checks"] if c["name"] == name]
if not c:
    print("missing")
    sys.exit()
line = c[0]["status"] + " " + c[0]["message"]
if parts in ("fix", "details"):
    line += " | " + c[0].get("fix", "")
if parts == "details":
    line += " | " + " / ".join(c[0].get("details", []))
print(line)' "$1" "$2" "$3"
}

# doctor_expect CHECK PARTS NODE PROFILE_LINES STATUS PATTERN [ENV...]: doctor on node NODE (""
# = no --node) with a profile of PROFILE_LINES, run under `env ENV...`; CHECK's line (doctor_line
# PARTS) must start with STATUS and match the extended regex PATTERN.
doctor_expect() {
  local check=$1 parts=$2 node=$3 lines=$4 want=$5 pattern=$6 got
  shift 6
  printf '%s\n' "cluster: test" "$lines" >"$tmp/cluster.yaml"
  env "$@" "$helper" doctor --json ${node:+--node "$node"} --profile "$tmp/cluster.yaml" --xml "$fixture" \
    ${DOCTOR_SYSFS:+--sysfs "$DOCTOR_SYSFS"} --plugstack /nonexistent >"$tmp/out.json" 2>"$tmp/err"
  got=$(doctor_line "$check" "$tmp/out.json" "$parts")
  if [[ "$got" != "$want "* ]] || ! grep -qE -- "$pattern" <<<"$got"; then
    echo "FAIL: ${node:+node $node with }'$lines': want $want matching '$pattern', got: $got"
    cat "$tmp/err"
    failures=$((failures + 1))
  else
    echo "as expected: ${node:+$node: }$got"
  fi
}

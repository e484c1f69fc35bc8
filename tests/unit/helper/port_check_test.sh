#!/usr/bin/env bash
# srt-helper port-check, the bind test the launcher runs on every node before the first worker
#: a port something listens on is reported with node, port and the
# process that wanted it (exit 1), other nodes' words are skipped, free ports pass (exit 0), and
# a word that is not NODE:PORT:WHAT is a usage error (exit 2).
# Usage: port_check_test.sh SRT_HELPER
set -euo pipefail
helper=${1:?usage: port_check_test.sh SRT_HELPER}
work=$(mktemp -d)
holder=
cleanup() { [[ -n "$holder" ]] && kill "$holder" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [[ -f "$work/out" ]] && cat "$work/out" >&2; exit 1; }

# Another program listening on a port of the kernel's choosing, on one address only (a worker
# binds all of them, which that listener refuses too), for at most 60 s.
/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' "$work/port" &
holder=$!
for _ in $(seq 100); do [[ -s "$work/port" ]] && break; sleep 0.1; done
busy=$(cat "$work/port" 2>/dev/null) || fail "the listener did not start"
# A port nobody holds: bound and released by the kernel's choice just before.
free=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])')

rc=0
"$helper" port-check --node n1 "n1:$busy:prefill:0 http" "n1:$free:prefill:0 engine" "n2:$busy:decode:0 http" \
  >"$work/out" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "a held port: exit $rc, expected 1"
want="port-check: node n1: port $busy (for prefill:0 http) cannot be bound: Address already in use; another job or program holds it"
[[ "$(sed -n 1p "$work/out")" == "$want" ]] || fail "first line is not: $want"
[[ "$(sed -n 2p "$work/out")" == "port-check: node n1: 1 of 2 planned port(s) free" ]] || fail "the count line"
[[ "$(wc -l <"$work/out")" == 2 ]] || fail "n2's port was checked on n1"

rc=0
SLURMD_NODENAME=n2 "$helper" port-check "n1:$busy:prefill:0 http" "n2:$free:decode:0 http" >"$work/out" 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "free ports (node from SLURMD_NODENAME): exit $rc"
[[ "$(cat "$work/out")" == "port-check: node n2: 1 of 1 planned port(s) free" ]] || fail "the free case's output"

for bad in "n1:$busy" "n1:0:x" "n1:70000:x" ":$busy:x"; do
  rc=0
  "$helper" port-check --node n1 "$bad" >"$work/out" 2>&1 || rc=$?
  [[ $rc == 2 ]] || fail "'$bad': exit $rc, expected 2"
  grep -Fq "is not NODE:PORT:WHAT" "$work/out" || fail "'$bad': no usage message"
done
echo "PASS: port-check reports a held port with node, port and owner, skips other nodes, refuses bad words"

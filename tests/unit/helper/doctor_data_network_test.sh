#!/bin/bash
# srt-helper doctor's data-network check on this host's real interfaces and resolver: the
# address the profile's rules give the node, the interface holding it, and a FAIL
# naming the node for an address that is not the node's, a name that does not resolve and a
# loopback answer.
#   doctor_data_network_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
fixture=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=doctor_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/doctor_lib.sh"
# check NODE PROFILE_LINES STATUS PATTERN: doctor's data-network line has STATUS and matches PATTERN.
check() { doctor_expect data-network fix "$@"; }

# An address of this host (lo's is always there): ok, naming the interface.
check n1 "node_addresses: {n1: 127.0.0.1}" ok 'node n1: data address 127\.0\.0\.1 on lo'
# Another host's address: every worker step here would fail.
check n1 "node_addresses: {n1: 203.0.113.9}" FAIL 'node n1: the address every node plans for it, 203\.0\.113\.9, is on none of its interfaces'
# A data-network name that resolves nowhere.
check n1 "data_network: {name_pattern: '{node}.srt-no-such-domain.invalid'}" FAIL "node n1: its data-network name 'n1\.srt-no-such-domain\.invalid' does not resolve"
# A name that resolves only to loopback (localhost, as Debian's 127.0.1.1 line for the host's own name).
check localhost "" FAIL 'node localhost: localhost resolves to 127\.0\.0\.1, a loopback address no other node can reach'
# Outside the CIDR.
check n1 "node_addresses: {n1: 127.0.0.1}
data_network: {cidr: 10.20.0.0/16}" FAIL 'outside data_network\.cidr 10\.20\.0\.0/16'

# Without --node or $SLURMD_NODENAME the node is the host name, maybe a login node's: a name it
# gives no address is a warning there, not a failure (here: a pattern nothing resolves).
printf '%s\n' "cluster: test" "data_network: {name_pattern: '{node}.srt-no-such-domain.invalid'}" >"$tmp/cluster.yaml"
env -u SLURMD_NODENAME "$helper" doctor --json --profile "$tmp/cluster.yaml" --xml "$fixture" --plugstack /nonexistent \
  >"$tmp/out.json" 2>"$tmp/err"
got=$(doctor_line data-network "$tmp/out.json" message)
if [[ "$got" == "warn "*"does not resolve"*"(if "*" is a compute node)" ]]; then
  echo "as expected: the host name: $got"
else
  echo "FAIL: on the host name, want a warning saying it does not resolve, got: $got"
  failures=$((failures + 1))
fi

(( failures == 0 )) && echo "PASS: doctor's data-network check"
exit $(( failures > 0 ))

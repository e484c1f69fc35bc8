#!/bin/bash
# srt-helper doctor's RDMA lines on a fake sysfs (class/infiniband, as the ionic driver lays it
# out) under the Pollara fixture, whose hwloc pairing is not GPU N with ionic_N: the RoCE v2 IPv4
# GID index each paired NIC carries against the profile's mooncake_gid_index (ok at 3; a warning
# naming the NIC that has it at 5, or none; with auto, ok where every NIC has it at one index),
# and ATOM's own NIC pick against the pairing (a
# warning naming the GPUs whose rdma<N>/ionic_<N> guess is another NIC).
#   doctor_rdma_test.sh SRT_HELPER SOURCE_DIR
set -uo pipefail
helper=$1 src=$2
fixture=$src/tests/fixtures/topology/mi355x-8gpu-pollara.xml
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=doctor_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/doctor_lib.sh"

# nic DEV V2_INDEX: an ACTIVE port whose GID table is show_gids' usual one: v1/v2 of the
# link-local IPv6 at 0/1, then v1 of the IPv4 address, and its v2 at V2_INDEX (none: "-").
nic() {
  local port="$DOCTOR_SYSFS/class/infiniband/$1/ports/1" i
  mkdir -p "$port/gids" "$port/gid_attrs/types"
  echo "4: ACTIVE" > "$port/state"
  for i in 0 1 2 3 4 5; do
    echo "0000:0000:0000:0000:0000:0000:0000:0000" > "$port/gids/$i"
    : > "$port/gid_attrs/types/$i"
  done
  echo "fe80:0000:0000:0000:5254:00ff:fe12:3456" > "$port/gids/0"; echo "IB/RoCE v1" > "$port/gid_attrs/types/0"
  echo "fe80:0000:0000:0000:5254:00ff:fe12:3456" > "$port/gids/1"; echo "RoCE v2" > "$port/gid_attrs/types/1"
  echo "0000:0000:0000:0000:0000:ffff:0a00:0001" > "$port/gids/2"; echo "IB/RoCE v1" > "$port/gid_attrs/types/2"
  if [[ $2 != - ]]; then
    echo "0000:0000:0000:0000:0000:ffff:0a00:0001" > "$port/gids/$2"; echo "RoCE v2" > "$port/gid_attrs/types/$2"
  fi
}

export DOCTOR_SYSFS=$tmp/sys
for n in 0 1 2 3 4 5 6 7; do nic "ionic_$n" 3; done
doctor_expect rdma-gid details "" "mooncake_gid_index: 3" ok \
  'every paired NIC carries its RoCE v2 IPv4 GID at index 3, the profile.s mooncake_gid_index \| +\| ionic_0 3 / ionic_1 3'
# ATOM's guess for GPU 0 is ionic_0; the pairing gives it ionic_4 (7 of the 8: GPU 5 is ionic_5).
doctor_expect atom-nic fix "" "mooncake_gid_index: 3" warn \
  "7 of 8 GPUs: ATOM's own pick is not the paired NIC: GPU 0 ionic_0 \(paired: ionic_4\); GPU 1 ionic_1 \(paired: ionic_7\); .*srt-spank names the paired NICs"

rm -rf "$DOCTOR_SYSFS"
for n in 0 1 2 3 5 6 7; do nic "ionic_$n" 3; done
nic ionic_4 5
doctor_expect rdma-gid fix "" "mooncake_gid_index: 3" warn \
  'not at the profile.s mooncake_gid_index 3: ionic_4 has it at 5 \| set mooncake_gid_index to the index show_gids lists'
rm -rf "$DOCTOR_SYSFS/class/infiniband/ionic_4"
nic ionic_4 -
doctor_expect rdma-gid fix "" "mooncake_gid_index: 3" warn 'ionic_4 has none'
doctor_expect rdma-gid fix "" "mooncake_gid_index: auto" warn \
  'auto finds no one RoCE v2 IPv4 GID index: ionic_4 has none; workers here get no MC_GID_INDEX'

# auto: the index every paired NIC shares, whatever it is.
rm -rf "$DOCTOR_SYSFS"
for n in 0 1 2 3 4 5 6 7; do nic "ionic_$n" 5; done
doctor_expect rdma-gid details "" "mooncake_gid_index: auto" ok \
  'mooncake_gid_index: auto: the workers here get MC_GID_INDEX 5, where every paired NIC carries its RoCE v2 IPv4 GID'
rm -rf "$DOCTOR_SYSFS/class/infiniband/ionic_4"
nic ionic_4 3
doctor_expect rdma-gid fix "" "mooncake_gid_index: auto" warn 'different indexes: .*ionic_4 3.*ionic_5 5'

if (( failures )); then
  echo "FAIL: $failures doctor line(s) not as expected"
  exit 1
fi
echo "PASS: doctor's RDMA GID and ATOM NIC lines"

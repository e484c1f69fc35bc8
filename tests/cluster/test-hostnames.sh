#!/usr/bin/env bash
# test-hostnames.sh BASE: "srun -N<all> hostname" answers with one distinct hostname per node
# (netns mode: the node names) or with the host's hostname on every node (multi mode).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
lab_test_init "${1:-}"

out=$(timeout 30 srun -N"$LAB_NODE_COUNT" -l hostname) || lab_fail "srun failed: $out"
echo "$out"
names=$(cut -d' ' -f2- <<<"$out" | sort)
[[ $(wc -l <<<"$names") -eq $LAB_NODE_COUNT ]] || lab_fail "expected $LAB_NODE_COUNT lines"
if [[ "$LAB_MODE" == netns ]]; then
  expected=$(for i in $(seq 1 "$LAB_NODE_COUNT"); do echo "$LAB_NODE_PREFIX$i"; done | sort)
  [[ "$names" == "$expected" ]] || lab_fail "netns mode: expected the node names, got: $names"
else
  [[ $(sort -u <<<"$names") == "$LAB_HOSTNAME" ]] \
    || lab_fail "multi mode: expected '$LAB_HOSTNAME' on every node, got: $names"
fi
echo "PASS: $LAB_MODE mode hostnames"

#!/usr/bin/env bash
# srt-helper preflight by hand on this machine (no ATOM installed): the default profile's engine
# is missing, one line each, exit 1; with the stand-in packages (the lab's engine_command) every
# role of the lab recipe is ready and the identity matches, exit 0; a recipe expecting another
# ATOM commit is an identity mismatch naming the field, the expected and the found value.
# Usage: preflight_cli_test.sh SRT_HELPER SOURCE_DIR
set -euo pipefail
helper=${1:?usage: preflight_cli_test.sh SRT_HELPER SOURCE_DIR}
src=${2:?usage: preflight_cli_test.sh SRT_HELPER SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
recipe="$src/recipes/lab/dsv4/atom/mi355x-fp4/8k1k/disagg-1p1d-tp8.yaml"

# A profile without ATOM: Debian's python3 has no atom package and no atomesh on PATH.
echo "engine_command: [/usr/bin/python3, -m, atom.entrypoints.openai_server]" > "$work/bare.yaml"
rc=0
"$helper" preflight --profile "$work/bare.yaml" > "$work/bare.out" 2>&1 || rc=$?
cat "$work/bare.out"
(( rc == 1 )) || fail "expected exit 1 without ATOM, got $rc"
grep -q "^missing: prefill on [^:]*: the engine module atom.entrypoints.openai_server is not there for /usr/bin/python3" "$work/bare.out" \
  || fail "the missing engine is not named"
grep -q "^missing: decode on [^:]*: Mooncake is not importable" "$work/bare.out" || fail "the missing Mooncake is not named"
grep -q "^missing: router on [^:]*: the router binary atomesh is not on PATH" "$work/bare.out" || fail "the missing router is not named"

# The lab's stand-ins: the engine package, Mooncake and the router are there.
cat > "$work/lab.yaml" <<YAML
engine_command: [env, PYTHONPATH=$src/tests/standins/pkg, /usr/bin/python3, -m, atom.entrypoints.openai_server]
router_command: [$src/tests/standins/bin/atomesh]
YAML
"$helper" preflight --profile "$work/lab.yaml" --recipe "$recipe" --role prefill --role decode --role router \
  > "$work/lab.out" 2>&1 || { cat "$work/lab.out"; fail "the stand-ins are not ready"; }
cat "$work/lab.out"
grep -q "0.1.4.dev113+g4e0848dcd (commit 4e0848dcd)" "$work/lab.out" || fail "the stand-in engine's version is not shown"
# The stand-in's Mooncake connector picks rdma<N>/ionic_<N> by the rank's physical GPU when no
# list is configured, as ATOM's auto-pick does: one NIC per rank.
grep -q "RDMA NICs: per-rank$" "$work/lab.out" || fail "the stand-in's NIC selection is not per-rank"

# The NIC selection read from the connector's source (it is parsed, never imported): a copy of
# the stand-in package whose connector takes one NIC per rank's GPU (the change the facts note
# describes) is per-rank; one that indexes only the visible-GPU list by the device stays
# all-listed; a package without a connector is unknown.
nic_case() {  # NAME CONNECTOR_SOURCE WANT
  cp -r "$src/tests/standins/pkg" "$work/pkg-$1"
  local conn="$work/pkg-$1/atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py"
  if [[ -n "$2" ]]; then printf '%s\n' "$2" > "$conn"; else rm -r "$work/pkg-$1/atom/kv_transfer"; fi
  printf 'engine_command: [env, PYTHONPATH=%s, /usr/bin/python3, -m, atom.entrypoints.openai_server]\n' "$work/pkg-$1" > "$work/$1.yaml"
  "$helper" preflight --profile "$work/$1.yaml" --role prefill --json > "$work/$1.json" || true
  /usr/bin/python3 -c 'import json,sys
got = json.load(open(sys.argv[1]))["fingerprint"]["engine"]["rdma_nic_selection"]
sys.exit(0 if got == sys.argv[2] else "%s: rdma_nic_selection %r, want %r" % (sys.argv[1], got, sys.argv[2]))' "$work/$1.json" "$3" ||
    fail "NIC selection case $1"
}
nic_case per-rank 'import torch
def select(ib_device):
    ib_devices = ib_device.split(",")
    return ib_devices[torch.cuda.current_device()]' per-rank
nic_case visible-only 'import os, torch
def phys(ib_device):
    visible = os.environ["HIP_VISIBLE_DEVICES"].split(",")
    return ib_device, visible[torch.cuda.current_device()]' all-listed
# Today's connector (ROCm/ATOM, late September 2026): with nothing configured each rank takes
# rdma<N>, else ionic_<N>, N its entry in the visibility variable; a configured list goes whole.
nic_case today 'import os, torch
def _auto_select_ib_device(phys_idx):
    for name in (f"rdma{phys_idx}", f"ionic_{phys_idx}"):
        if os.path.isdir("/sys/class/infiniband/" + name):
            return name
    return f"rdma{phys_idx}"
def _select_ib_devices(protocol, ib_device):
    if ib_device:
        return ib_device
    visible = (os.environ.get("ROCR_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES") or "").split(",")
    return _auto_select_ib_device(int(visible[torch.cuda.current_device()]))' per-rank
# A connector that only hands on what is configured: every rank opens the whole list.
nic_case list-only 'def _select(protocol, ib_device):
    return "" if protocol == "tcp" else ib_device' all-listed
nic_case no-connector '' unknown
nic_case not-python 'def (:' unknown

# Another ATOM commit expected: an identity mismatch, exit 1, and the same in --json.
rc=0
"$helper" preflight --profile "$work/lab.yaml" --recipe "$recipe" --role prefill \
  --set identity.frameworks.atom=5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4 > "$work/wrong.out" 2>&1 || rc=$?
cat "$work/wrong.out"
(( rc == 1 )) || fail "expected exit 1 for a wrong commit, got $rc"
grep -q "^identity: identity.frameworks.atom: expected 5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4, found 0.1.4.dev113+g4e0848dcd (prefill on [^)]*)$" \
  "$work/wrong.out" || fail "the mismatch does not name field, expected and found"
"$helper" preflight --profile "$work/lab.yaml" --recipe "$recipe" --role prefill --json \
  --set identity.frameworks.atom=5837907f3aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4 > "$work/wrong.json" || true
/usr/bin/python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False and d["missing"] == [], d
m = d["identity_mismatches"]
assert [x["field"] for x in m] == ["identity.frameworks.atom"], m
assert d["fingerprint"]["engine"]["commit"] == "4e0848dcd", d["fingerprint"]' "$work/wrong.json" || fail "--json verdict"
echo "PASS"

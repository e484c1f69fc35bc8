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
# probe_connector NAME CONNECTOR_SOURCE: preflight --json of a copy of the stand-in package whose
# connector is CONNECTOR_SOURCE ("": no connector at all), into $work/NAME.json.
probe_connector() {
  cp -r "$src/tests/standins/pkg" "$work/pkg-$1"
  local conn="$work/pkg-$1/atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py"
  if [[ -n "$2" ]]; then printf '%s\n' "$2" > "$conn"; else rm -r "$work/pkg-$1/atom/kv_transfer"; fi
  printf 'engine_command: [env, PYTHONPATH=%s, /usr/bin/python3, -m, atom.entrypoints.openai_server]\n' "$work/pkg-$1" > "$work/$1.yaml"
  "$helper" preflight --profile "$work/$1.yaml" --role prefill --json > "$work/$1.json" || true
}
nic_case() {  # NAME CONNECTOR_SOURCE WANT
  probe_connector "$1" "$2"
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

# What the probe reads of each shape ROCm/ATOM's connector has had (docs/design.md "ATOM's NIC
# choice"), each a minimal reconstruction of our own: the behaviours in fingerprints.json's
# engine.rdma_nic, and the one pick word the node's NIC rule takes.
nic_shape() {  # NAME CONNECTOR_SOURCE KEY=VALUE...
  local name=$1
  probe_connector "$1" "$2"
  shift 2
  /usr/bin/python3 - "$work/$name.json" "$@" <<'PY' || fail "NIC shape $name"
import json, sys
nic = json.load(open(sys.argv[1]))["fingerprint"]["engine"]["rdma_nic"]
for want in sys.argv[2:]:
    key, value = want.split("=", 1)
    got = nic[key]
    if str(got).lower() != value:
        sys.exit("%s: %s is %r, want %r (%s)" % (sys.argv[1], key, got, value, nic))
PY
}
# May 2026 (#690): nothing configured -> rdma<the rank's device ordinal>, unchecked; TCP still
# passes it; a list goes whole.
nic_shape may 'import torch
class MooncakeConnector:
    def __init__(self, kv_transfer_config):
        ib_device = kv_transfer_config.get("ib_device", "")
        if not ib_device:
            gpu_idx = torch.cuda.current_device()
            ib_device = f"rdma{gpu_idx}"
        self.ib_device = ib_device' pick=rdma:visible nothing_configured=own-nic index=visible configured_list=whole tcp=device-passed
# June 2026 (#1308): the same name from the GPU's entry in the visibility variable.
nic_shape june 'import os, torch
class MooncakeConnector:
    def __init__(self, kv_transfer_config):
        ib_device = kv_transfer_config.get("ib_device", "") or os.environ.get("ATOM_MOONCAKE_IB_DEVICE", "")
        visible_idx = torch.cuda.current_device()
        visible_env = os.environ.get("HIP_VISIBLE_DEVICES") or os.environ.get("CUDA_VISIBLE_DEVICES")
        visible_list = [d for d in visible_env.split(",") if d != ""] if visible_env else []
        phys_idx = int(visible_list[visible_idx]) if visible_list else visible_idx
        if not ib_device:
            ib_device = f"rdma{phys_idx}"
        self.ib_device = ib_device' pick=rdma:physical index=physical configured_list=whole tcp=device-passed
# July 2026 (#1475, #1505): rdma<N>, else ionic_<N>, checked under /sys/class/infiniband.
nic_shape july 'import os, torch
def _auto_select_ib_device(phys_idx):
    for name in (f"rdma{phys_idx}", f"ionic_{phys_idx}"):
        if os.path.exists(f"/sys/class/infiniband/{name}"):
            return name
    return f"rdma{phys_idx}"
class MooncakeConnector:
    def __init__(self, kv_transfer_config):
        ib_device = kv_transfer_config.get("ib_device", "")
        visible_idx = torch.cuda.current_device()
        visible_list = os.environ.get("HIP_VISIBLE_DEVICES", "").split(",")
        phys_idx = int(visible_list[visible_idx])
        self.ib_device = ib_device or _auto_select_ib_device(phys_idx)' pick=rdma+ionic_:physical tcp=device-passed matched_rails=false
# August 2026 (#1866): TCP gets no device at all.
nic_shape august 'import os, torch
def _auto_select_ib_device(phys_idx):
    for name in (f"rdma{phys_idx}", f"ionic_{phys_idx}"):
        if os.path.exists(f"/sys/class/infiniband/{name}"):
            return name
    return f"rdma{phys_idx}"
def _select_ib_device(protocol, configured_device, phys_idx):
    if protocol.strip().lower() == "tcp":
        return ""
    if configured_device:
        return configured_device
    return _auto_select_ib_device(phys_idx)
class MooncakeConnector:
    def __init__(self, kv_transfer_config):
        configured = kv_transfer_config.get("ib_device", "") or os.environ.get("ATOM_MOONCAKE_IB_DEVICE", "")
        visible_idx = torch.cuda.current_device()
        visible_env = os.environ.get("HIP_VISIBLE_DEVICES") or os.environ.get("CUDA_VISIBLE_DEVICES")
        phys_idx = int(visible_env.split(",")[visible_idx]) if visible_env else visible_idx
        self.ib_device = _select_ib_device(kv_transfer_config.get("protocol", "rdma"), configured, phys_idx)' \
  pick=rdma+ionic_:physical tcp=no-device configured_list=whole alternate_hca=false
# September 2026 (#1921, #2276): a list of devices (the primary first), alternate HCAs, matched
# rails with one primary HCA; with nothing configured still one NIC of the rank's own.
nic_shape september 'import os, torch
from atom import envs
def _auto_select_ib_device(phys_idx):
    for name in (f"rdma{phys_idx}", f"ionic_{phys_idx}"):
        if os.path.exists(f"/sys/class/infiniband/{name}"):
            return name
    return f"rdma{phys_idx}"
def _parse_ib_devices(configured_devices):
    return list(dict.fromkeys(d.strip() for d in configured_devices.split(",") if d.strip()))
def _select_ib_devices(protocol, configured_devices, phys_idx, *, enable_alternate_hca=False, hca_count=8):
    if protocol.strip().lower() != "rdma":
        return []
    if configured_devices:
        return _parse_ib_devices(configured_devices)
    devices = [_auto_select_ib_device(phys_idx)]
    if enable_alternate_hca:
        devices += [_auto_select_ib_device(i) for i in range(hca_count) if i != phys_idx]
    return devices
class MooncakeConnector:
    def __init__(self, kv_transfer_config):
        configured = kv_transfer_config.get("ib_device", "") or os.environ.get("ATOM_MOONCAKE_IB_DEVICE", "")
        visible = (os.environ.get("ROCR_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES") or "").split(",")
        phys_idx = int(visible[torch.cuda.current_device()])
        devices = _select_ib_devices(kv_transfer_config.get("protocol", "rdma"), configured, phys_idx,
                                     enable_alternate_hca=kv_transfer_config.get("ib_enable_alternate_hca", False))
        self.primary = devices[0] if devices else ""
        self.rails = envs.ATOM_MOONCAKE_MATCHED_RAILS
        self.ib_device = ",".join(devices)' \
  pick=rdma+ionic_:physical configured_list=whole matched_rails=true alternate_hca=true nothing_configured=own-nic \
  tcp=no-device

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

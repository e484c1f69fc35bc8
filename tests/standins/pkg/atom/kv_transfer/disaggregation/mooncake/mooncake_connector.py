"""Stand-in for ``atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py`` as srt-helper
preflight inspects it (it parses this file, never imports it): how ATOM at ffdf3bb5d gives
Mooncake its NICs. The NIC filter is ``ib_device`` from --kv-transfer-config, else
ATOM_MOONCAKE_IB_DEVICE, else one device picked by the rank's physical GPU (rdma<phys>, then
ionic_<phys>); a configured string goes whole to TransferEngine.initialize on every rank, where
Mooncake splits it on "," into a set: every rank opens every NIC listed. The lab's Mooncake is
TCP, which passes an empty filter. (The engine stand-in itself is tests/standins/atom_server.py.)"""

import os


def _ib_device_exists(name):
    return os.path.isdir(os.path.join("/sys/class/infiniband", name))


def _auto_select_ib_device(phys_idx):
    for name in ("rdma%d" % phys_idx, "ionic_%d" % phys_idx):
        if _ib_device_exists(name):
            return name
    return "rdma%d" % phys_idx


def _select_ib_device(protocol, configured, phys_idx):
    """The filter handed to Mooncake: empty for TCP, the configured list unchanged, or one device."""
    if protocol == "tcp":
        return ""
    return configured if configured else _auto_select_ib_device(phys_idx)


def physical_gpu(visible_devices, current_device):
    """The rank's physical GPU: its entry in HIP_VISIBLE_DEVICES (the only list a rank indexes)."""
    if not visible_devices:
        return current_device
    return int(visible_devices.split(",")[current_device])

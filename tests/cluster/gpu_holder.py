#!/usr/bin/python3
"""A process holding one fake GPU, as the amdgpu driver shows it: gpu_holder.py FAKE GPU MIB
[--uid N] registers this PID in FAKE/class/kfd/kfd/proc (pasid, a queue on the GPU, its VRAM)
and adds MIB to the GPU's mem_info_vram_used, then sleeps. On SIGTERM it undoes both before
exiting, as the driver frees a process's memory when it ends (SIGKILL leaves them: the
memory a dead process left). --uid: become that user once registered (another user's process).
FAKE is a tree from tests/fixtures/rsmi/make-fake-sysfs.py; GPU is its PCI-order index."""
import argparse
import os
import shutil
import signal
import sys
import time

GPU_ID_BASE, GPU_ID_STEP = 40000, 64  # make-fake-sysfs.py's gpu_id(gpu) for one partition


def device_dir(fake, gpu):
    drm = os.path.join(fake, "class/drm")
    amd = []
    for card in os.listdir(drm):
        dev = os.path.realpath(os.path.join(drm, card, "device"))
        try:
            with open(os.path.join(dev, "vendor")) as f:
                if f.read().strip() == "0x1002":
                    amd.append((os.path.basename(dev), dev))
        except OSError:
            continue
    amd.sort()
    return amd[gpu][1]


def add_used(path, delta):
    with open(path) as f:
        value = int(f.read())
    with open(path, "w") as f:
        f.write("%d\n" % (value + delta))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fake")
    ap.add_argument("gpu", type=int, choices=range(8))
    ap.add_argument("mib", type=int)
    ap.add_argument("--uid", type=int)
    a = ap.parse_args()
    gpu_id = GPU_ID_BASE + GPU_ID_STEP * a.gpu
    used = os.path.join(device_dir(a.fake, a.gpu), "mem_info_vram_used")
    entry = os.path.join(a.fake, "class/kfd/kfd/proc", str(os.getpid()))
    os.makedirs(os.path.join(entry, "queues/0"))
    for name, value in (("pasid", 40000 + os.getpid() % 20000), ("queues/0/gpuid", gpu_id),
                        ("vram_%d" % gpu_id, a.mib << 20), ("sdma_%d" % gpu_id, 0)):
        with open(os.path.join(entry, name), "w") as f:
            f.write("%d\n" % value)
    add_used(used, a.mib << 20)

    def release(*_):
        shutil.rmtree(entry, ignore_errors=True)
        try:
            add_used(used, -(a.mib << 20))
        except OSError:
            pass
        sys.exit(0)

    signal.signal(signal.SIGTERM, release)
    if a.uid is not None:
        os.setgroups([])
        os.setgid(a.uid)
        os.setuid(a.uid)
    print("holding GPU %d with %d MiB as PID %d" % (a.gpu, a.mib, os.getpid()), flush=True)
    deadline = time.monotonic() + 900  # bounded: a test that forgets it does not leave it forever
    while time.monotonic() < deadline:
        time.sleep(1)
    release()


if __name__ == "__main__":
    main()

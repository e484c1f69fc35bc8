#!/usr/bin/env bash
# fake-gpu-sysfs.sh mount FAKE | umount   (run inside one lab node's mount namespace)
# Gives that node 8 MI355X GPUs as ROCm SMI sees them, without hiding anything real: a copy of
# the node's /sys (every top-level directory and every class bound from the real one, so
# slurmd, hwloc and /sys/fs/cgroup are unchanged) plus the fake tree's class/drm, class/kfd
# and its devices (FAKE is made by tests/fixtures/rsmi/make-fake-sysfs.py --devices-dir
# srt-fake-devices), stacked over /sys. Steps slurmd starts afterwards inherit it; the host and
# the other nodes do not see it (lab nodes' mount namespaces are private). `umount` takes the
# stacked copy away again, leaving the real /sys as it was.
set -euo pipefail
case "${1:-}" in
  mount)
    fake=${2:?usage: fake-gpu-sysfs.sh mount FAKE}
    [[ -d "$fake/class/kfd" && -d "$fake/class/drm" && -d "$fake/srt-fake-devices" ]] \
      || { echo "fake-gpu-sysfs: $fake is not a tree from make-fake-sysfs.py --devices-dir srt-fake-devices" >&2; exit 1; }
    view=$(mktemp -d /tmp/srt-fake-sys-view.XXXXXX)
    mount -t tmpfs -o mode=755,size=1m srt-fake-sys "$view"
    for entry in /sys/*; do
      name=${entry##*/}
      [[ "$name" == class ]] && continue
      mkdir "$view/$name" && mount --rbind "$entry" "$view/$name"
    done
    mkdir "$view/class"
    for entry in /sys/class/*; do
      name=${entry##*/}
      [[ "$name" == drm || "$name" == kfd ]] && continue  # a real GPU's classes give way to the fake
      mkdir "$view/class/$name" && mount --rbind "$entry" "$view/class/$name"
    done
    for name in drm kfd; do mkdir "$view/class/$name" && mount --bind "$fake/class/$name" "$view/class/$name"; done
    mkdir "$view/srt-fake-devices" && mount --bind "$fake/srt-fake-devices" "$view/srt-fake-devices"
    mount --rbind "$view" /sys
    # The stacked copy stays at /sys alone: the staging mount point goes.
    umount -l "$view" && rmdir "$view"
    ;;
  umount)
    [[ -d /sys/srt-fake-devices ]] || { echo "fake-gpu-sysfs: no fake GPUs on this node's /sys" >&2; exit 1; }
    umount -l /sys
    [[ ! -e /sys/srt-fake-devices ]] || { echo "fake-gpu-sysfs: /sys still shows the fake GPUs" >&2; exit 1; }
    ;;
  *) echo "usage: fake-gpu-sysfs.sh mount FAKE | umount" >&2; exit 2 ;;
esac

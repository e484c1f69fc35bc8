#!/usr/bin/env bash
# The pure parts of core do no I/O: no object of srt_core outside its I/O edge
# references open/fopen/getenv/posix_spawn/fork/exec/popen/opendir/dlopen, file streams or the
# std::filesystem calls that touch the disk, and no object of srt_core calls a function of srt
# that srt_core does not define (the machine edge, sys/, and the helper sit above core, never
# below it). Topology discovery (hwloc, the ROCm SMI dlopen, the per-node cache) is the one
# designed edge. Usage: core_pure_objects_test.sh OBJECT...
set -euo pipefail

designed_edge='^topology/'
# C functions, file streams (their filebuf's open), and std::filesystem calls that touch the file
# system (everything of std::filesystem but path, which is only text).
forbidden='^(open|open64|openat|openat64|fopen|fopen64|freopen|getenv|secure_getenv|posix_spawn|posix_spawnp|fork|vfork|execv|execve|execvp|execvpe|execl|execlp|popen|system|opendir|fdopendir|glob|dlopen|_ZNSt13basic_filebuf.*4open.*|_ZNSt10filesystem.*)$'
pure_filesystem='^_ZNSt10filesystem(7__cxx11)?4path'

(($# > 20)) || { echo "FAIL: expected srt_core's objects, got $# arguments" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every function and object of namespace srt that srt_core defines (strong, weak or inline).
nm --defined-only "$@" 2>/dev/null | awk 'NF >= 3 && $3 ~ /^_ZN(K)?3srt/ {print $3}' | sort -u >"$work/defined"

bad=0 checked=0 edge_refs=0
for obj in "$@"; do
  rel=${obj##*/srt_core.dir/}
  rel=${rel%.o}
  rel=${rel#./}  # Ninja names them srt_core.dir/./topology/..., Make srt_core.dir/topology/...
  refs=$(nm -u "$obj" | awk '{print $NF}' | grep -E "$forbidden" | grep -vE "$pure_filesystem" | c++filt | sed -E 's/\(.*//' | sort -u | tr '\n' ' ' || true)
  if [[ $rel =~ $designed_edge ]]; then
    [[ -n $refs ]] && edge_refs=$((edge_refs + 1))
    continue
  fi
  checked=$((checked + 1))
  if [[ -n $refs ]]; then
    echo "FAIL: $rel is pure core but references: $refs" >&2
    echo "      take bytes and values instead, and do the I/O in sys/, spank/ or helper/" >&2
    bad=1
  fi
  # Calls into srt that core cannot satisfy: a function of sys/ or the helper used from core.
  up=$(nm -u "$obj" | awk '$NF ~ /^_ZN(K)?3srt/ {print $NF}' | sort -u | comm -23 - "$work/defined" | c++filt | sed -E 's/\(.*//' | sort -u | tr '\n' ' ' || true)
  if [[ -n $up ]]; then
    echo "FAIL: $rel calls what srt_core does not define: $up" >&2
    echo "      core is below sys/ and the helper: pass the bytes or the values in instead" >&2
    bad=1
  fi
done
# The check must be able to see I/O: the designed edge does some.
((edge_refs > 0)) || { echo "FAIL: no I/O reference found even in core/topology: is nm reading these objects?" >&2; bad=1; }
[[ -s $work/defined ]] || { echo "FAIL: no srt symbol defined by srt_core: is nm reading these objects?" >&2; bad=1; }
((bad == 0)) || exit 1
echo "ok: $checked pure objects of srt_core reference no I/O and call nothing above core (topology the one I/O edge)"

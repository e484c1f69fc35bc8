#!/usr/bin/env bash
# The pure parts of core do no I/O (issue 19): no object of srt_core outside its I/O edges
# references open/fopen/getenv/posix_spawn/fork/exec/popen/opendir/dlopen or file streams.
# The edges are listed below with the reason each is one; topology discovery is the designed
# one, the others are still to move out, and an edge that no longer needs its place fails the
# test so the list only shrinks. Usage: core_pure_objects_test.sh OBJECT...
set -euo pipefail

# Where core meets the machine by design: hwloc, the ROCm SMI dlopen, the per-node cache.
designed_edge='^topology/'
# Still to move to the helper (issue 19 item 5), each with what it does.
declare -A pending=(
  [common/text_file.cpp]="read_text_file: recipe and profile files are read by path"
  [host/plugstack.cpp]="system_plugstack_fs: doctor reads plugstack.conf and its includes"
  [report/pictures.cpp]="the report's pictures start python"
  [report/run.cpp]="load_runs walks a results directory"
)
# C functions, file streams (their filebuf's open), and std::filesystem calls that touch the file
# system (everything of std::filesystem but path, which is only text).
forbidden='^(open|open64|openat|openat64|fopen|fopen64|freopen|getenv|secure_getenv|posix_spawn|posix_spawnp|fork|vfork|execv|execve|execvp|execvpe|execl|execlp|popen|system|opendir|fdopendir|glob|dlopen|_ZNSt13basic_filebuf.*4open.*|_ZNSt10filesystem.*)$'
pure_filesystem='^_ZNSt10filesystem(7__cxx11)?4path'

(($# > 20)) || { echo "FAIL: expected srt_core's objects, got $# arguments" >&2; exit 1; }
bad=0 checked=0 edge_refs=0
declare -A seen_pending=()
for obj in "$@"; do
  rel=${obj##*/srt_core.dir/}
  rel=${rel%.o}
  refs=$(nm -u "$obj" | awk '{print $NF}' | grep -E "$forbidden" | grep -vE "$pure_filesystem" | c++filt | sed -E 's/\(.*//' | sort -u | tr '\n' ' ' || true)
  if [[ $rel =~ $designed_edge ]]; then
    [[ -n $refs ]] && edge_refs=$((edge_refs + 1))
    continue
  fi
  checked=$((checked + 1))
  if [[ -n ${pending[$rel]+x} ]]; then
    seen_pending[$rel]=1
    if [[ -z $refs ]]; then
      echo "FAIL: $rel no longer does I/O; take it off the pending list in $0" >&2
      bad=1
    fi
    continue
  fi
  if [[ -n $refs ]]; then
    echo "FAIL: $rel is pure core but references: $refs" >&2
    echo "      take bytes and values instead, and do the I/O in spank/ or helper/" >&2
    bad=1
  fi
done
for rel in "${!pending[@]}"; do
  [[ -n ${seen_pending[$rel]+x} ]] || { echo "FAIL: pending edge $rel is not an object of srt_core any more; remove it from $0" >&2; bad=1; }
done
# The check must be able to see I/O: the designed edge does some.
((edge_refs > 0)) || { echo "FAIL: no I/O reference found even in core/topology: is nm reading these objects?" >&2; bad=1; }
((bad == 0)) || exit 1
echo "ok: $checked pure objects of srt_core reference no I/O (${#pending[@]} pending edges, topology the designed one)"

#!/usr/bin/env bash
# test-srt-exec.sh SRT_EXEC STATIC_TARGET: srt-exec is fully static and needs nothing from the
# host: it runs in a bubblewrap sandbox whose root holds only srt-exec and a static target.
# Checked there: it writes the Mooncake topology before the exec, refuses a missing --require
# path and a missing topology directory with a clear message, names a program it cannot run,
# and raises memlock for RDMA (or says why it cannot); in a /tmp shared with other users, no
# symlink planted at or beside the topology's name is written through.
set -euo pipefail
exe=${1:?usage: test-srt-exec.sh SRT_EXEC STATIC_TARGET}
target=${2:?usage: test-srt-exec.sh SRT_EXEC STATIC_TARGET}
fail() { echo "FAIL: $*" >&2; exit 1; }

# Outputs captured first: `cmd | grep -q` under pipefail fails when grep exits early and cmd dies
# of SIGPIPE, and under `if` that would hide the very NEEDED entry looked for.
ftype=$(file -L "$exe")
[[ "$ftype" == *'statically linked'* ]] || fail "srt-exec is not static: $ftype"
dynamic=$(readelf -d "$exe") || fail "readelf -d $exe failed"
if grep -q NEEDED <<<"$dynamic"; then fail "srt-exec needs shared libraries"; fi
echo "static: $(cut -d: -f2 <<<"$ftype" | cut -d, -f1-2), no NEEDED entries"

# The sandbox: an empty tmpfs root with srt-exec, the target and an empty /tmp. No /usr, no libc.
# (No user namespace: root keeps CAP_SYS_RESOURCE, as in a pyxis container with remap-root.)
box() {
  bwrap --unshare-all --tmpfs / --ro-bind "$exe" /srt-exec --ro-bind "$target" /target --dir /tmp \
    --proc /proc --dev /dev --clearenv --setenv PATH /nonexistent "$@"
}
out=$(box --setenv MC_CUSTOM_TOPO_JSON /tmp/srt-mooncake-prefill_0.json \
          --setenv SRT_MOONCAKE_TOPOLOGY '{"hip:0":[["rdma0"],[]]}' /srt-exec -- /target a b)
echo "$out"
{ grep -qx 'arg a' <<<"$out" && grep -qx 'arg b' <<<"$out"; } || fail "arguments not passed"
grep -qxF 'topology {"hip:0":[["rdma0"],[]]}' <<<"$out" || fail "the topology file was not written before the exec"

# A /tmp shared with other users (the node's, under bwrap): a symlink planted at
# the topology's name is replaced, not written through, and no temporary file is left.
shared=$(mktemp -d)
trap 'rm -rf "$shared"' EXIT
echo "the victim's file" > "$shared/victim"
ln -s /tmp/victim "$shared/srt-mooncake-7-prefill_0.json"
# and at every name beside it that a pid-numbered temporary file could take (in the sandbox's
# pid namespace srt-exec's pid is a small number): the old srt-exec wrote through these.
for pid in $(seq 1 32); do ln -s /tmp/victim "$shared/srt-mooncake-7-prefill_0.json.tmp.$pid"; done
out=$(box --bind "$shared" /tmp --setenv MC_CUSTOM_TOPO_JSON /tmp/srt-mooncake-7-prefill_0.json \
          --setenv SRT_MOONCAKE_TOPOLOGY '{"hip:1":[["rdma1"],[]]}' /srt-exec -- /target)
grep -qxF 'topology {"hip:1":[["rdma1"],[]]}' <<<"$out" || fail "the topology was not written over the planted link"
[[ "$(cat "$shared/victim")" == "the victim's file" ]] || fail "srt-exec wrote through a planted symlink"
[[ -f "$shared/srt-mooncake-7-prefill_0.json" && ! -L "$shared/srt-mooncake-7-prefill_0.json" ]] ||
  fail "the topology path is not a regular file of its own"
leftover=$(find "$shared" -name 'srt-mooncake-7-prefill_0.json.*' ! -type l)
[[ -z "$leftover" ]] || fail "temporary files left: $leftover"
echo "planted symlink at the topology's name: replaced, not followed"

# docs/security.md "Files other users plant": what srt-exec cannot replace at the name (here a
# directory; in a sticky /tmp any other user's file) does not stop the worker: the topology goes
# into a private directory of its own and MC_CUSTOM_TOPO_JSON names it there.
mkdir "$shared/srt-mooncake-8-decode_0.json"
out=$(box --bind "$shared" /tmp --setenv MC_CUSTOM_TOPO_JSON /tmp/srt-mooncake-8-decode_0.json \
          --setenv SRT_MOONCAKE_TOPOLOGY '{"hip:2":[["rdma2"],[]]}' /srt-exec -- /target) ||
  fail "a planted name stopped srt-exec: $out"
grep -qxF 'topology {"hip:2":[["rdma2"],[]]}' <<<"$out" || fail "the topology was not written elsewhere: $out"
private=$(find "$shared" -maxdepth 1 -type d -name 'srt-mooncake-??????')
[[ -n $private && "$(stat -c %a "$private")" == 700 && -f "$private/srt-mooncake-8-decode_0.json" ]] ||
  fail "the topology is not in a private directory: $(ls -la "$shared")"
echo "a name planted at the topology's path: written in a private directory instead"

check_refusal() {  # check_refusal WANT_TEXT BOX_ARGS...
  local want=$1 rc=0 err
  shift
  err=$(box "$@" 2>&1 >/dev/null) || rc=$?
  (( rc != 0 )) || fail "expected a refusal containing '$want'"
  grep -qF -- "$want" <<<"$err" || fail "message '$err' does not contain '$want'"
  echo "refused (exit $rc): $(head -n1 <<<"$err")"
}
check_refusal '/model/DeepSeek does not exist inside the container' /srt-exec --require /model/DeepSeek -- /target
check_refusal 'its directory /nonexistent does not exist' \
  --setenv MC_CUSTOM_TOPO_JSON /nonexistent/topo.json /srt-exec -- /target
check_refusal 'cannot run python3: No such file or directory' /srt-exec -- python3 -m atom

# memlock: raised where the process may (CAP_SYS_RESOURCE, or an unlimited hard limit); where
# it may not (this VM's container drops CAP_SYS_RESOURCE), a refusal that says why.
if prlimit --memlock=unlimited:unlimited true 2>/dev/null; then
  out=$(box /srt-exec --rdma -- /target)
  grep -qx 'memlock unlimited' <<<"$out" || fail "memlock not raised for --rdma: $out"
  echo "--rdma: memlock unlimited"
else
  check_refusal 'cannot raise the memlock limit to unlimited' /srt-exec --rdma -- /target
fi
rc=0
err=$(prlimit --memlock=65536:65536 setpriv --reuid=65534 --regid=65534 --clear-groups \
      "$exe" --rdma -- "$target" 2>&1 >/dev/null) || rc=$?
{ (( rc != 0 )) && grep -qF 'cannot raise the memlock limit to unlimited' <<<"$err"; } \
  || fail "an unprivileged --rdma run did not refuse clearly: $err"
echo "--rdma unprivileged, hard limit 64 KiB: $(head -n1 <<<"$err")"
echo "PASS"

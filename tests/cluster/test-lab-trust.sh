#!/usr/bin/env bash
# test-lab-trust.sh: lab-start.sh and lab-stop.sh run as root and source BASE/env.sh, and the
# bases default to /tmp, where any user can make a path first. A base or env.sh that is not
# root's own, is a symbolic link, or is writable by others is refused with the reason, before
# anything in it is sourced or removed, and so is one below a directory another user could swap
# it in. No daemon is started.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
(( EUID == 0 )) || { echo "SKIP: needs root (chown to another user)" >&2; exit 77; }

work=$(mktemp -d /tmp/srt-lab-trust.XXXXXX)
trap 'rm -rf "$work"' EXIT
marker=$work/sourced
plant() {  # plant DIR: a base whose env.sh would leave $marker if it were sourced
  mkdir -p "$1"
  printf 'touch %q\nexport LAB_NETNS_PREFIX=x LAB_LINK_PREFIX=x\n' "$marker" > "$1/env.sh"
}

# expect_refused NAME WANT SCRIPT ARGS...: SCRIPT exits non-zero saying WANT, sources nothing,
# and leaves the base as it was.
expect_refused() {
  local name=$1 want=$2 base=$3 rc=0 out
  shift 3
  out=$(bash "$@" --base "$base" 2>&1) || rc=$?
  (( rc != 0 )) || lab_die "$name: $(basename "$1") accepted the base: $out"
  grep -qF -- "$want" <<< "$out" || lab_die "$name: $(basename "$1") did not say '$want': $out"
  [[ ! -e "$marker" ]] || lab_die "$name: $(basename "$1") sourced the planted env.sh"
  [[ -e "$base/env.sh" ]] || lab_die "$name: $(basename "$1") removed the planted base"
  echo "ok: $name refused by $(basename "$1"): $(grep -F -- "$want" <<< "$out" | head -1)"
}

# Another user's base (as if they made /tmp/lab-srt-... before root ran the tests).
plant "$work/theirs"
chown -R 65534:65534 "$work/theirs"
for script in lab-stop.sh lab-start.sh; do
  expect_refused "another user's base" "belongs to uid 65534, not root" "$work/theirs" "$HERE/$script"
done

# Root's base, but its env.sh is another user's, or writable by group/others.
plant "$work/env-theirs"
chown 65534 "$work/env-theirs/env.sh"
expect_refused "another user's env.sh" "env.sh belongs to uid 65534" "$work/env-theirs" "$HERE/lab-stop.sh"
plant "$work/env-writable"
chmod 666 "$work/env-writable/env.sh"
expect_refused "a world-writable env.sh" "is writable by group or others (mode 666)" "$work/env-writable" "$HERE/lab-stop.sh"
plant "$work/dir-writable"
chmod 1777 "$work/dir-writable"
expect_refused "a world-writable base" "is writable by group or others (mode 1777)" "$work/dir-writable" "$HERE/lab-start.sh"

# A base that is a link (to a directory root owns, which lab-start.sh would otherwise wipe).
plant "$work/target"
ln -s "$work/target" "$work/link"
expect_refused "a linked base" "is a symbolic link" "$work/link" "$HERE/lab-start.sh"

# A base inside another user's directory (they could rename it away and plant their own), and
# inside a directory anyone may write to that is not sticky.
mkdir -p "$work/their-parent" "$work/open-parent"
plant "$work/their-parent/base"
plant "$work/open-parent/base"
chown 65534 "$work/their-parent"
chmod 777 "$work/open-parent"
expect_refused "a base in another user's directory" "their-parent (above the lab base" "$work/their-parent/base" "$HERE/lab-stop.sh"
expect_refused "a base in a non-sticky open directory" "without the sticky bit (mode 777)" "$work/open-parent/base" "$HERE/lab-start.sh"

echo "PASS: every planted lab base was refused before anything in it ran"

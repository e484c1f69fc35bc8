#!/usr/bin/env bash
# The README is the front door for users: at most 12 KB, with the sections a new admin, benchmark
# engineer and contributor look for first, and every docs/ page it links to present. The details
# live in docs/ (one page per reader), not here.
#   readme_test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: readme_test.sh SOURCE_DIR}
readme=$src/README.md
max=12288
rc=0
fail() { echo "FAIL: $*" >&2; rc=1; }
[ -r "$readme" ] || { echo "FAIL: no $readme" >&2; exit 1; }
size=$(stat -c %s "$readme")
[ "$size" -le "$max" ] || fail "README.md is $size bytes, over $max: move the detail into a docs/ page and link it"
for section in "Install" "Quick start" "Worked example" "Developer loop" "Layout"; do
  grep -qx "## $section" "$readme" || fail "README.md has no '## $section' section"
done
# The two commands the README keeps.
for cmd in scripts/demo.sh scripts/test.sh; do
  grep -q "^    $cmd\$" "$readme" || fail "README.md does not show '$cmd' as a command"
done
# Every relative link (docs/..., a file in the tree) names something that exists.
while read -r link; do
  path=${link%%#*}
  [ -e "$src/$path" ] || fail "README.md links to $link, which does not exist"
done < <(grep -oE '\]\([^)#:]+(#[^)]*)?\)' "$readme" | sed -E 's/^\]\((.*)\)$/\1/')
[ "$rc" = 0 ] && echo "ok: README.md $size bytes (<= $max), five sections, links resolve"
exit "$rc"

#!/usr/bin/env bash
# Product code cites what a reader of the repository can open: a docs/ page and section
# (docs/design.md "The Plan"), an upstream file and commit, a Slurm document. Never an issue
# number, the founding DESIGN notes or the shared reference/ notes: none of them ships with the
# tree. Tests may read ../shared/reference (their inputs), so tests/ is not checked here.
#   citations_test.sh SOURCE_DIR
# Fails naming each FILE:LINE and the text that cites.
set -uo pipefail
src=${1:?usage: citations_test.sh SOURCE_DIR}
cd "$src" || exit 1
dirs=()
for d in core spank helper exec jobstep sys slurmapi scripts etc recipes; do
  [ -d "$d" ] && dirs+=("$d")
done
hits=$(grep -rnIE '[Ii]ssue [0-9]|DESIGN|reference/' "${dirs[@]}")
if [ -n "$hits" ]; then
  echo "$hits" | sed 's/^/citation: /'
  echo "FAIL: $(echo "$hits" | wc -l) line(s) above cite an issue number, DESIGN or reference/ notes," \
    "which a reader of the repository cannot open. Keep the reason and cite docs/design.md (section)," \
    "another docs/ page, or the upstream file and commit the note names." >&2
  exit 1
fi
echo "ok: no issue numbers, DESIGN or reference/ citations in ${dirs[*]}"

#!/usr/bin/env bash
# Product code cites what a reader of the repository can open: a docs/ page and one of its headings
# (docs/design.md "The Plan"), a file in the tree, an upstream file with its repository and commit
# (NVIDIA/srt-slurm src/srtctl/backends/vllm.py @ 009a4fa3), a Slurm document. Never an issue
# number or a finding's ID, nor a note that does not ship with the tree (the founding DESIGN notes,
# the shared reference/ notes). citations.py reads the comments of every source folder (core spank
# helper exec jobstep sys slurmapi scripts etc recipes cli packaging), joined over lines, and the
# section citations of README.md and docs/*.md; its docstring lists the rules. Tests may read
# ../shared/reference (their inputs), so tests/ is not checked here. citations_selftest.sh plants
# each kind of broken citation in a fake tree and checks that this test names it.
#   citations_test.sh SOURCE_DIR
# Fails naming each FILE:LINE, the kind (issue, note, path, section) and the text that cites.
set -uo pipefail
src=${1:?usage: citations_test.sh SOURCE_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -d "$src" ] || { echo "FAIL: no directory $src" >&2; exit 1; }
exec python3 -B "$here/citations.py" "$src"

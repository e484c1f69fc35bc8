#!/usr/bin/env bash
# citations_test.sh's own test: a tiny fake tree (docs pages with headings, a file in each kind of
# source folder, citations of every good form) passes; the same tree with one broken citation
# planted fails, naming the file, the line and the citation. One case per rule: a section name
# that is no heading (also wrapped over two lines, also in README.md), a docs page that is not
# there, an issue number wrapped over two lines, a bare #N, a finding's ID, the shared reference
# notes, an X.md that ships nowhere, a path that does not exist, in C++, shell, Python (comment and
# docstring), YAML, CMake and spec files under core/, scripts/, cli/, packaging/ and recipes/.
#   citations_selftest.sh [SOURCE_DIR]   (SOURCE_DIR: where tests/unit/scripts/citations_test.sh is)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checker=$here/citations_test.sh
[ $# -ge 1 ] && checker=$1/tests/unit/scripts/citations_test.sh
[ -r "$checker" ] || { echo "FAIL: no $checker" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0
fail() { echo "FAIL: $*" >&2; rc=1; }

# The clean fake tree: every citation in it resolves.
clean=$tmp/clean
mkdir -p "$clean"/{docs,core/plan,core/include/srt,jobstep/launch,scripts,cli,packaging,recipes/a}
cat >"$clean/docs/design.md" <<'EOF'
# Design

## The Plan

### How ATOM runs

```sh
# Not a heading: inside a fence
```
EOF
cat >"$clean/docs/security.md" <<'EOF'
# Security

## The network

#### `srt-helper apply`
EOF
cat >"$clean/README.md" <<'EOF'
# fake

The design: docs/design.md "The Plan" and [docs/security.md](docs/security.md) "The network".
EOF
cat >"$clean/core/include/srt/plan.hpp" <<'EOF'
// The Plan (docs/design.md "The Plan"; its engines in core/plan/atom.cpp).
#pragma once
EOF
cat >"$clean/core/plan/atom.cpp" <<'EOF'
// The ATOM engine (docs/design.md "How ATOM
// runs"), planned from srt/plan.hpp and ../include/srt/plan.hpp. srtctl renders the same argv
// (NVIDIA/srt-slurm src/srtctl/backends/atom.py @ 1a749ed1; srtctl's core/roles.py), as ATOM's
// connector picks NICs (ROCm/ATOM #1475, ATOM PR #1316, srt-slurm #436, PR #2276).
#include "srt/plan.hpp"
/* Every rank inherits the environment (docs/security.md "The network",
 * docs/security.md "srt-helper apply"). */
const char* kHint = "a printed string is not a comment: issue 23, reference 2.5, docs/design.md \"Nope\"";
int x = 1'000;  // a digit separator, not a character literal; docs/design.md, "The Plan"
EOF
cat >"$clean/jobstep/launch/machine_supervise.cpp" <<'EOF'
// Workers that come back (jobstep/launch/machine_supervise.cpp, docs/design.md "The Plan").
EOF
cat >"$clean/scripts/test.sh" <<'EOF'
#!/usr/bin/env bash
# The phases (docs/design.md "The Plan"); scripts/test.sh itself, core/plan/atom.cpp.
n=$#  # $# is not a comment
a=(1 2); echo "${#a[@]} # not a comment either: issue 7"
cat <<'DOC'
# a here-document is data: issue 9
DOC
EOF
cat >"$clean/scripts/probe.py" <<'EOF'
"""A probe (docs/design.md "How ATOM runs")."""
# Read as ROCm/ATOM atom/kv_transfer/disaggregation/mooncake/mooncake_connector.py reads it.
x = "issue 5 in a string"
EOF
cat >"$clean/cli/CMakeLists.txt" <<'EOF'
# The CLI library (docs/design.md "The Plan").
add_library(srt_cli STATIC cli.cpp)
EOF
cat >"$clean/packaging/fake.spec" <<'EOF'
# A SPANK plugin loads only in its Slurm series (SchedMD/slurm src/common/plugin.c).
Name: fake
EOF
cat >"$clean/recipes/a/agg.yaml" <<'EOF'
# A recipe (docs/design.md "The Plan"); InferenceX's benchmarks/srt_agentic.sh runs it.
name: "a # not a comment"
EOF

out=$(bash "$checker" "$clean" 2>&1)
status=$?
[ "$status" = 0 ] || fail "the clean fake tree fails (exit $status): $out"

# plant NAME FILE EXPECT...: a copy of the clean tree with FILE's content from stdin appended must
# fail, and its output must name FILE and every EXPECT.
plant() {
  local name=$1 file=$2; shift 2
  local t=$tmp/$name
  rm -rf "$t"; cp -a "$clean" "$t"
  mkdir -p "$(dirname "$t/$file")"
  cat >>"$t/$file"
  local out status
  out=$(bash "$checker" "$t" 2>&1)
  status=$?
  if [ "$status" = 0 ]; then fail "$name: a tree with it passes: $out"; return; fi
  grep -qF "$file:" <<<"$out" || fail "$name: the output does not name $file: $out"
  local e
  for e in "$@"; do grep -qF -- "$e" <<<"$out" || fail "$name: the output does not say '$e': $out"; done
}

plant section core/plan/atom.cpp 'section' 'has no heading "The Plans"' <<'EOF'
// See docs/design.md "The Plans".
EOF
plant section-wrapped core/plan/atom.cpp 'core/plan/atom.cpp:10' 'has no heading "How ATOM really runs"' <<'EOF'
// The engine (docs/design.md "How ATOM
// really runs").
EOF
plant section-second core/plan/atom.cpp 'has no heading "The Planet"' <<'EOF'
// docs/security.md "The network", "The Planet".
EOF
plant section-readme README.md 'README.md:4' 'has no heading "Containers"' <<'EOF'
Where images run: docs/design.md "Containers".
EOF
plant section-page cli/CMakeLists.txt 'docs/cli.md does not exist' <<'EOF'
# docs/cli.md "Options"
EOF
plant issue-wrapped core/plan/atom.cpp 'core/plan/atom.cpp:10' 'issue: issue 23' <<'EOF'
// Not beside the original: anyone could plant it (issue
// 23).
EOF
plant issue-hash scripts/test.sh 'issue' '#436' <<'EOF'
# #436: schema 2's sglang is a direct worker.
EOF
plant issue-shell-wrapped scripts/test.sh 'scripts/test.sh:8' 'Issue #12' <<'EOF'
# as asked in Issue
# #12
EOF
plant finding packaging/fake.spec 'issue' 'docs/security.md H1' <<'EOF'
# Root-owned only (docs/security.md H1).
EOF
plant finding-paren recipes/a/agg.yaml 'issue' '(M3)' <<'EOF'
# the mount policy (M3)
EOF
plant finding-n core/plan/atom.cpp 'issue' 'finding 2' <<'EOF'
// as the review asked (finding 2)
EOF
plant note-reference core/plan/atom.cpp 'note' 'reference 2.5' <<'EOF'
// srtctl's merge order (reference 2.5).
EOF
plant note-named cli/CMakeLists.txt 'note' 'inferencex-runner.md' <<'EOF'
# the runner's layout (inferencex-runner.md (c))
EOF
plant note-dir packaging/fake.spec 'note' 'reference/' <<'EOF'
# compares plugin_version, reference/spank-api.md 0.1
EOF
plant note-design core/plan/atom.cpp 'note' 'DESIGN' <<'EOF'
// as DESIGN.md says
EOF
plant note-md scripts/probe.py 'note' 'kv-notes.md is nowhere in the tree' <<'EOF'
def f():
    """Frames as kv-notes.md describes them."""
EOF
plant path core/plan/atom.cpp 'path' 'jobstep/launch/supervise.cpp does not exist' <<'EOF'
// the launcher supervises by it (jobstep/launch/supervise.cpp), as srtctl does.
EOF
plant path-relative core/plan/atom.cpp 'path' 'launch/failure.hpp does not exist' <<'EOF'
// status.json's class (launch/failure.hpp)
EOF
plant path-shell scripts/test.sh 'path' 'scripts/rootfs.sh does not exist' <<'EOF'
# each root filesystem (scripts/rootfs.sh)
EOF

[ "$rc" = 0 ] && echo "ok: citations_test.sh passes a clean fake tree and names each planted broken citation"
exit "$rc"

#!/usr/bin/env bash
# packages.sh RELEASE GROUP...: the Debian packages scripts/packages.list names for those groups
# on that release (its column), one a line, in the list's order. Exits non-zero, saying why, on
# an unknown release or a malformed line.
set -euo pipefail
release=${1:?usage: packages.sh RELEASE GROUP...}
shift
(( $# > 0 )) || { echo "usage: packages.sh RELEASE GROUP..." >&2; exit 2; }
list=$(dirname "${BASH_SOURCE[0]}")/packages.list
awk -v release="$release" -v groups=" $* " -v list="$list" '
  /^[[:space:]]*(#|$)/ { next }
  !ncol {
    ncol = NF
    for (i = 2; i <= NF; i++) if ($i == release) col = i
    if (!col) { printf "%s: no column for release %s (it has:", list, release > "/dev/stderr"
                for (i = 2; i <= NF; i++) printf " %s", $i > "/dev/stderr"
                print ")" > "/dev/stderr"; bad = 1; exit }
    next
  }
  NF != ncol { printf "%s:%d: %d fields, the header line has %d\n", list, NR, NF, ncol > "/dev/stderr"; bad = 1; next }
  index(groups, " " $1 " ") { name = $col; if (name == "=") name = $2; if (name != "-") print name }
  END { exit bad }' "$list"

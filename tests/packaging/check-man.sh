#!/usr/bin/env bash
# check-man.sh DIR: every man page in DIR renders without a single groff or man warning.
set -euo pipefail
dir=${1:?usage: check-man.sh DIR}
status=0
pages=("$dir"/*.[1-8])
[[ -e "${pages[0]}" ]] || { echo "FAIL: no man pages in $dir" >&2; exit 1; }
for page in "${pages[@]}"; do
  warnings=$( { groff -ww -z -man "$page" 2>&1; LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null; } || true)
  if [[ -n "$warnings" ]]; then
    echo "FAIL: $page:" >&2
    echo "$warnings" >&2
    status=1
  else
    echo "ok: $(basename "$page")"
  fi
done
exit $status

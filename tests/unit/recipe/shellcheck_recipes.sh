#!/bin/bash
# Extracts benchmark.command from every shipped recipe and runs shellcheck on it: the command runs
# as `bash -lc` inside the container, after the model has loaded, so a shell mistake is expensive.
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
while IFS= read -r -d '' recipe; do
  out="$tmp/$(basename "$recipe" .yaml).sh"
  /usr/bin/python3 - "$recipe" "$out" <<'PY'
import sys, yaml
recipe = yaml.safe_load(open(sys.argv[1]))
cmd = (recipe.get("benchmark") or {}).get("command")
with open(sys.argv[2], "w") as f:
    f.write("#!/bin/bash\n" + (cmd or "") + "\n")
PY
  echo "shellcheck: $recipe"
  shellcheck -s bash "$out"
  n=$((n + 1))
done < <(find "$root" -name '*.yaml' -print0)
[ "$n" -gt 0 ]
echo "$n recipe command(s) clean"

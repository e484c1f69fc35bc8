#!/usr/bin/env bash
# CMakePresets.json's `ci` preset is scripts/test.sh's main build: configured as the packages are,
# with exactly the arguments `packaging/build-packages.sh --layout-args` prints (and warnings as
# errors). The two must not drift apart.
#   presets_test.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: presets_test.sh SOURCE_DIR}
layout=$(bash "$src/packaging/build-packages.sh" --layout-args) || { echo "FAIL: build-packages.sh --layout-args" >&2; exit 1; }
python3 - "$src/CMakePresets.json" "$layout" <<'PY'
import json, sys
presets = {p["name"]: p for p in json.load(open(sys.argv[1]))["configurePresets"]}
want = {"SRT_WERROR": "ON"}
for arg in sys.argv[2].split("\n"):
    key, _, value = arg[2:].partition("=")
    want[key] = value
have = presets["ci"]["cacheVariables"]
diff = sorted(set(want.items()) ^ set(have.items()))
if diff:
    for k, v in diff:
        print(f"FAIL: ci preset {'lacks' if (k, v) in want.items() else 'has extra'} {k}={v}", file=sys.stderr)
    sys.exit(1)
print(f"ok: the ci preset is build-packages.sh --layout-args ({len(want) - 1} variables) with SRT_WERROR")
PY

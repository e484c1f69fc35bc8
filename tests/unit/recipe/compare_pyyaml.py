#!/usr/bin/python3
"""Reads every file with python3-yaml's safe_load and with srt's reader (yaml_dump) and fails on
any difference in value or type. Files both readers refuse agree; KNOWN lists where srt refuses on
purpose what PyYAML accepts (integers beyond int64, recursive structures)."""
import datetime
import json
import math
import os
import subprocess
import sys

import yaml

KNOWN = {"int-beyond-int64.yaml": "srt refuses integers beyond int64",
         "recursive-alias.yaml": "srt refuses recursive structures (JSON cannot hold them)"}


def py_key(k):
    if isinstance(k, str):
        return k
    if k is None:
        return "None"
    return str(k)


def norm_py(v):
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        if math.isnan(v):
            return ["float", "nan"]
        if math.isinf(v):
            return ["float", "inf" if v > 0 else "-inf"]
        return ["float", v]
    if v is None:
        return ["null"]
    if isinstance(v, (datetime.date, datetime.datetime)):
        return ["str", str(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [norm_py(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[py_key(k), norm_py(x)] for k, x in v.items()]]
    raise TypeError(type(v))


def norm_srt(v):
    if isinstance(v, dict) and set(v) == {"$float"}:
        return ["float", v["$float"]]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        return ["float", v]
    if v is None:
        return ["null"]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [norm_srt(x) for x in v]]
    return ["dict", [[k, norm_srt(x)] for k, x in v.items()]]


def main():
    dump, files = sys.argv[1], sys.argv[2:]
    failures = 0
    for f in files:
        name = os.path.basename(f)
        out = subprocess.run([dump, f], capture_output=True, text=True, timeout=60).stdout.strip()
        ours = json.loads(out)
        try:
            with open(f, encoding="utf-8") as fh:
                theirs = yaml.safe_load(fh)
            py_error = None
        except Exception as e:  # noqa: BLE001 - any refusal counts
            py_error = str(e).splitlines()[0]
        srt_error = ours.get("$error") if isinstance(ours, dict) and set(ours) == {"$error"} else None
        if name in KNOWN:
            print(f"known  {name}: {KNOWN[name]} (srt: {srt_error})")
            continue
        if py_error or srt_error:
            if py_error and srt_error:
                print(f"same   {name}: both refuse")
            else:
                failures += 1
                print(f"DIFF   {name}: PyYAML: {py_error or 'accepts'}; srt: {srt_error or 'accepts'}")
            continue
        if norm_py(theirs) != norm_srt(ours):
            failures += 1
            print(f"DIFF   {name}:\n  PyYAML: {json.dumps(norm_py(theirs))}\n  srt:    {json.dumps(norm_srt(ours))}")
        else:
            print(f"same   {name}")
    print(f"{len(files)} files, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

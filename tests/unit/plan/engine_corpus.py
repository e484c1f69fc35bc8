#!/usr/bin/python3
"""Every MI355X variant of one engine that InferenceX runs through srt-slurm plans, and every argv
the Plan gives that engine and its router parses with the real programs' command lines.

The corpus (../shared/reference/corpus-v2 and corpus-v2.18) and the CLI specs
(../shared/reference/cli/) live outside the project: read from there, never copied; exit 77
(skipped) when they are absent. The argparse programs (SGLang's launch_server, sglang-router with
smg's CLI as its alternatives[0], `vllm serve`) are rebuilt with Python's own argparse by
tests/standins/check_cli_specs.py's argparse_from_spec, and argparse decides: abbreviations,
arity, types and choices are the real program's rules. vllm-router is clap: checked by the same
file's check_clap.

Flags an image's own build has and the spec (upstream) lacks are listed, with the reason, in
spec_exemptions.tsv beside this file: FILE (relative to the corpus), FLAG, REASON. Those flags,
and their values, are removed before parsing; anything else unrecognised fails.

For sglang it also counts the ATOM variants of the same corpora: they must all still plan.

usage: engine_corpus.py ENGINE SRT_HELPER SRC_DIR    (ENGINE: sglang | vllm)
"""

import csv
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "standins"))
from check_cli_specs import SpecError, argparse_from_spec, check_clap  # noqa: E402

SKIPPED = 77

# engine: (the worker adapter, its program, its spec), (the router adapter, its program, spec)
ENGINES = {
    "sglang": {"worker": ("sglang", ["python3", "-m", "sglang.launch_server"], "sglang-launch-server.json"),
               "router": ("sglang-router", ["python", "-m", "sglang_router.launch_router"], "sglang-router.json"),
               "also": "atom"},
    "vllm": {"worker": ("vllm", ["vllm", "serve"], "vllm-serve.json"),
             "router": ("vllm-router", ["vllm-router"], "vllm-router.json"),
             "also": None},
}


def argparse_check(parsers):
    """A checker: '' when one of the parsers takes argv, else what each said."""
    def check(argv):
        problems = []
        for parser in parsers:
            try:
                parser.parse_args(argv)
                return ""
            except SpecError as e:
                problems.append(str(e))
        return " / ".join(problems)
    return check


def checker(spec):
    if spec.get("parser", "").startswith("clap"):
        return lambda argv: "; ".join(check_clap(spec["arguments"], argv))
    return argparse_check([argparse_from_spec(spec)] + [argparse_from_spec(a) for a in spec.get("alternatives", [])])


def without_flags(argv, flags):
    """argv with each exempted flag and the values after it removed."""
    out, skipping = [], False
    for token in argv:
        if token.startswith("--"):
            skipping = token.split("=", 1)[0] in flags
        if not skipping:
            out.append(token)
    return out


def variants(helper, profile, path):
    """(SELECTOR or None, node count or None) for each variant validate lists."""
    run = subprocess.run([helper, "validate", "--profile", profile, path], capture_output=True, text=True)
    out = []
    for line in run.stdout.splitlines():
        m = re.match(re.escape(path) + r"(?::(\S+))?(?: \(.*\))?: (ok \((\d+) nodes?\)|invalid)", line)
        if m:
            out.append((m.group(1), int(m.group(3)) if m.group(3) else None))
    return out


def main():
    engine, helper, src = sys.argv[1], sys.argv[2], sys.argv[3]
    cfg = ENGINES[engine]
    reference = os.path.join(src, "..", "shared", "reference")
    corpora = [c for c in ("corpus-v2", "corpus-v2.18") if os.path.isdir(os.path.join(reference, c))]
    specs = os.path.join(reference, "cli")
    spec_files = [cfg["worker"][2], cfg["router"][2]]
    if not corpora or not all(os.path.isfile(os.path.join(specs, f)) for f in spec_files):
        print(f"skipped: no corpus or CLI specs under {reference}")
        return SKIPPED
    checks = {}
    for role in ("worker", "router"):
        adapter, program, spec_file = cfg[role]
        with open(os.path.join(specs, spec_file)) as f:
            checks[adapter] = (program, checker(json.load(f)))
    exemptions = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_exemptions.tsv")) as f:
        for row in csv.reader((line for line in f if line.strip() and not line.startswith("#")), delimiter="\t"):
            exemptions.setdefault(row[0], set()).add(row[1])
    profile = os.path.join(src, "etc", "srt", "cluster.yaml")

    failures = []
    for corpus in corpora:
        root = os.path.join(reference, corpus)
        engines = [engine] + ([cfg["also"]] if cfg["also"] else [])
        counts = {e: [0, 0] for e in engines}
        argvs = 0
        for path in sorted(glob.glob(os.path.join(root, "**", "*.yaml"), recursive=True)):
            rel = os.path.relpath(path, root)
            parts = rel.split(os.sep)
            found = next((e for e in engines if e in parts), None)
            if found is None or not any(p.startswith("mi355x") for p in parts):
                continue
            for selector, nodes in variants(helper, profile, path):
                label = f"{corpus}/{rel}:{selector}"
                name = path + (":" + selector if selector else "")
                counts[found][1] += 1
                if nodes is None:
                    failures.append(f"{label}: validate says invalid")
                    continue
                nodelist = f"n[1-{nodes}]" if nodes > 1 else "n1"
                run = subprocess.run([helper, "plan", "--profile", profile, "--json", "--nodelist", nodelist, name],
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    failures.append(f"{label}: plan: {(run.stderr.strip().splitlines() or ['?'])[-1]}")
                    continue
                counts[found][0] += 1
                if found != engine:
                    continue
                exempt = exemptions.get(rel, set())
                for p in json.loads(run.stdout)["processes"]:
                    if p.get("adapter") not in checks:
                        continue
                    program, check = checks[p["adapter"]]
                    argv = p["argv"]
                    if argv[:len(program)] != program:
                        failures.append(f"{label}: {p['name']} runs {argv[:3]}")
                        continue
                    argvs += 1
                    problem = check(without_flags(argv[len(program):], exempt))
                    if problem:
                        failures.append(f"{label}: {p['name']} on {p['node']}: {problem}")
        also = "".join(f" and {counts[e][0]} of {counts[e][1]} {e} variants" for e in engines[1:])
        print(f"{corpus}: plan succeeds for {counts[engine][0]} of {counts[engine][1]} MI355X {engine} variants "
              f"({argvs} {engine} and router argvs checked against the specs){also}")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

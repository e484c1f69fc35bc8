#!/usr/bin/python3
"""Compares what tasks saw (`srun -l env` output) with what `srt-helper plan --json` says each
node's tasks must see (docs/design.md "The environment contract").

usage: check_srt_env.py PLAN_JSON ENV_DUMP [--step NAME] [--tasks N]
Every task is matched to its node by SLURMD_NODENAME. Exit 0 when every task has exactly the
expected SRT_*/ATOM_*/MC_* values (and nothing srt-owned that the Plan does not name), 1 otherwise.
"""
import argparse
import collections
import json
import re
import sys

OWNED = re.compile(r"^(SRT_|SRTCTL_|ATOM_|MC_|INFERA_ATOM_)")


def expected_env(plan, node_index, step):
    node = plan["nodes"][node_index]
    env = dict(plan["job_env"])
    env["SRT_PLAN_DIGEST"] = plan["digest"]
    env["SRT_NODE_INDEX"] = str(node_index)
    env["SRT_NODE_ROLES"] = ",".join(node["roles"])
    unset = []
    if step:
        proc = next(p for p in plan["processes"] if p["name"] == step)
        env.update(proc["env"])
        unset = proc["unset_env"]
    return env, unset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plan")
    ap.add_argument("dump")
    ap.add_argument("--step", default="")
    ap.add_argument("--tasks", type=int, default=0, help="how many tasks must be in the dump")
    args = ap.parse_args()
    with open(args.plan) as f:
        plan = json.load(f)
    tasks = collections.defaultdict(dict)
    with open(args.dump) as f:
        for line in f:
            m = re.match(r"^(\d+): ([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line.rstrip("\n"))
            if m:
                tasks[int(m.group(1))][m.group(2)] = m.group(3)
    problems = []
    if args.tasks and len(tasks) != args.tasks:
        problems.append(f"expected {args.tasks} tasks in the dump, found {len(tasks)}")
    names = [n["name"] for n in plan["nodes"]]
    for task, env in sorted(tasks.items()):
        node = env.get("SLURMD_NODENAME")
        if node not in names:
            problems.append(f"task {task}: SLURMD_NODENAME={node!r} is not a node of the plan")
            continue
        want, unset = expected_env(plan, names.index(node), args.step)
        for k, v in want.items():
            if env.get(k) != v:
                problems.append(f"task {task} on {node}: {k}={env.get(k)!r}, plan says {v!r}")
        for k in env:
            if OWNED.match(k) and k not in want:
                problems.append(f"task {task} on {node}: {k} is set but the plan does not name it")
        for k in unset:
            if k in env:
                problems.append(f"task {task} on {node}: {k} should be unset")
        print(f"task {task} on {node}: {sum(1 for k in want if env.get(k) == want[k])}/{len(want)} variables as planned")
    for p in problems:
        print("MISMATCH:", p, file=sys.stderr)
    return 1 if problems or not tasks else 0


if __name__ == "__main__":
    sys.exit(main())

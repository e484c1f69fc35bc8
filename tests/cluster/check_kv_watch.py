#!/usr/bin/python3
"""Did every DP rank of every worker reach a subscriber on another node?

    check_kv_watch.py --plan plan.json --mode offset|relay NODE=WATCH.json...

Each WATCH.json is `srt-helper kv-watch --json` run on NODE inside the job (endpoints from
SRT_KV_EVENT_ENDPOINTS). The Plan says which endpoints exist, on which node, and which ranks
each must carry: in offset mode a worker's rank r publishes alone on the r-th port of its block;
in relay mode every rank of a worker arrives on its relay's one endpoint. An endpoint counts
only through watchers on a node other than its own (the cross-node path the router uses).
Exit 0 when all holds, 1 with every shortfall listed.
"""

import argparse
import json
import sys

WORKER_ROLES = ("prefill", "decode", "agg")


def expected_endpoints(plan, mode):
    """endpoint -> (owner process name, owner node, set of rank names it must deliver)."""
    nodes = {n["index"]: n for n in plan["nodes"]}
    by_name = {p["name"]: p for p in plan["processes"]}
    out = {}
    for p in plan["processes"]:
        ports = p.get("ports", {}).get("kv_events", [])
        address = nodes[p["node_index"]]["address"]
        if mode == "offset" and p["role"] in WORKER_ROLES:
            for rank, port in enumerate(ports):
                out[f"tcp://{address}:{port}"] = (p["name"], p["node"], {str(rank)})
        elif mode == "relay" and p["role"] == "kv-relay":
            worker = by_name[p["name"][len("kv-relay:"):]]
            ranks = {str(r) for r in range(worker["ranks"])}
            for port in ports:
                out[f"tcp://{address}:{port}"] = (worker["name"], p["node"], ranks)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", required=True)
    ap.add_argument("--mode", required=True, choices=("offset", "relay"))
    ap.add_argument("watches", nargs="+", metavar="NODE=WATCH.json")
    a = ap.parse_args()
    with open(a.plan, encoding="utf-8") as f:
        plan = json.load(f)
    problems = []
    if plan.get("kv_events_mode") != a.mode:
        problems.append(f"the Plan's kv_events_mode is {plan.get('kv_events_mode')!r}, not {a.mode!r}")
    want = expected_endpoints(plan, a.mode)
    advertised = plan.get("kv_event_endpoints", [])
    if set(advertised) != set(want) or len(advertised) != len(want):
        problems.append(f"advertised endpoints {advertised} are not the Plan processes' {sorted(want)}")

    watches = {}
    for spec in a.watches:
        node, _, path = spec.partition("=")
        with open(path, encoding="utf-8") as f:
            watches[node] = {e["endpoint"]: e for e in json.load(f)["endpoints"]}
        if list(watches[node]) != advertised:
            problems.append(f"the watcher on {node} subscribed to {list(watches[node])}, "
                            f"not SRT_KV_EVENT_ENDPOINTS {advertised}")

    ranks_seen = 0
    for endpoint, (worker, owner, ranks) in sorted(want.items()):
        remote = [n for n in watches if n != owner]
        if not remote:
            problems.append(f"{endpoint} ({worker} on {owner}): no watcher on another node")
        for node in remote:
            got = watches[node].get(endpoint)
            if got is None:
                problems.append(f"{endpoint} ({worker} on {owner}): not watched from {node}")
                continue
            if set(got["ranks"]) != ranks:
                problems.append(f"{endpoint} ({worker} on {owner}) seen from {node}: ranks {sorted(got['ranks'])}, "
                                f"want {sorted(ranks, key=int)}")
            if any(t["events"] <= 0 for t in got["ranks"].values()) or got["undecodable"]:
                problems.append(f"{endpoint} ({worker} on {owner}) seen from {node}: {got}")
        ranks_seen += len(ranks)
    if problems:
        print("FAIL: KV events did not reach the subscribers:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print(f"{a.mode}: {len(want)} endpoint(s), {ranks_seen} rank(s) of "
          f"{len({w for w, _, _ in want.values()})} worker(s), every one received on another node "
          f"(watchers on {', '.join(sorted(watches))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Listening-port audit: does every process of a Plan on this node listen on exactly the TCP
ports the Plan gave it?

    port_audit.py --plan plan.json --node node1 [--pid prefill:0=1234 ...]
                  [--marker 'SRT_STEP={name}' ...] [--ignore-range 15000-17000 ...]
                  [--ignore-ephemeral] [--planned-address] [--json]

For each Plan process placed on the node, the process tree to audit is found either from
``--pid NAME=PID`` or by environment markers: a process matches when its /proc/PID/environ
has every ``VAR=VALUE`` of the ``--marker`` templates (default ``SRT_STEP={name}``; fields:
name, role, index, node, node_index, step_name, job_id); the tree is every matching process
whose parent does not match, plus all their descendants. Listening sockets come from
``ss -ltnpH`` (or ``--ss-output FILE`` for a saved listing).

Reported per process: sockets not in the Plan (unexpected), Plan ports nobody in the tree
listens on (missing, with the foreign pid holding the port if any), and a Plan process with
ports that is not running. With ``--planned-address`` a port whose address the Plan sets (the
table PLANNED_ADDRESS: workers' HTTP and bootstrap, routers' public and metrics ports, kv-relays'
publishers) must be bound to the node's address in the Plan and nowhere else: a socket on that
port at ``0.0.0.0``, ``*`` or another address is reported (wrong address). Exit status: 0 all match, 1 any mismatch, 2 bad usage or input.

Ports that are not Plan ports and must be ignored on a real ATOM node: Mooncake's transfer
engine RPC port per rank, random in [MC_MIN_RPC_PORT, MC_MAX_RPC_PORT] = 15000-17000
(``--ignore-range 15000-17000``), and ATOM/Mooncake's kernel-chosen ports (scheduler
remote_port, decode notify ROUTER, ping port; ``--ignore-ephemeral``). The stand-ins bind
neither, so the lab runs the audit without them.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

USERS_PID = re.compile(r"pid=(\d+)")

# role -> the port kinds whose listen address the Plan sets (docs/security.md "Listeners").
PLANNED_ADDRESS = {
    "prefill": {"http", "bootstrap"}, "decode": {"http", "bootstrap"}, "agg": {"http", "bootstrap"},
    "router": {"http", "metrics"}, "kv-relay": {"kv_events"},
}


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------

def load_plan(path):
    try:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read plan {path}: {exc}") from exc
    if not isinstance(plan, dict) or not isinstance(plan.get("processes"), list):
        raise UsageError(f"{path}: not a Plan (no 'processes' list)")
    return plan


def node_processes(plan, node):
    """Plan processes on the node, the node given by name or by index."""
    names = {str(n.get("name")): n.get("index") for n in plan.get("nodes", [])}
    if node not in names and not any(str(n.get("index")) == node for n in plan.get("nodes", [])):
        raise UsageError(f"node {node!r} is not in the Plan (nodes: {sorted(names)})")
    chosen = []
    for proc in plan["processes"]:
        if str(proc.get("node")) == node or str(proc.get("node_index")) == node:
            chosen.append(proc)
    return chosen


def plan_ports(proc):
    """{port: kind} from the process's "ports" map (values: int or list of ints)."""
    ports = {}
    for kind, values in (proc.get("ports") or {}).items():
        for port in values if isinstance(values, list) else [values]:
            if port is not None:
                ports[int(port)] = kind
    return ports


def parse_ss(text):
    """[(address, port, {pids})] from `ss -ltnpH` lines (state, recv-q, send-q, local,
    peer, users)."""
    sockets = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        local = fields[3]
        address, _, port = local.rpartition(":")
        if not port.isdigit():
            continue
        users = " ".join(fields[5:])
        sockets.append((address, int(port), {int(p) for p in USERS_PID.findall(users)}))
    return sockets


def read_sockets(ss_output):
    if ss_output:
        with open(ss_output, encoding="utf-8") as f:
            return parse_ss(f.read())
    try:
        text = subprocess.run(["ss", "-ltnpH"], check=True, capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"ss -ltnpH failed: {exc}") from exc
    return parse_ss(text)


def ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            lo, hi = f.read().split()
            return int(lo), int(hi)
    except (OSError, ValueError):
        return 32768, 60999


# ---------------------------------------------------------------------------------------
# process trees from /proc
# ---------------------------------------------------------------------------------------

class ProcTable:
    def __init__(self, proc_root="/proc"):
        self.root = proc_root
        self.parent = {}
        self.comm = {}
        for entry in os.listdir(proc_root):
            if not entry.isdigit():
                continue
            try:
                with open(f"{proc_root}/{entry}/stat", encoding="utf-8", errors="replace") as f:
                    stat = f.read()
            except OSError:
                continue  # exited while we looked
            # comm may contain spaces and parentheses: split at the last ')'.
            head, _, tail = stat.rpartition(")")
            self.comm[int(entry)] = head.partition("(")[2]
            self.parent[int(entry)] = int(tail.split()[1])
        self.children = defaultdict(list)
        for pid, ppid in self.parent.items():
            self.children[ppid].append(pid)

    def environ(self, pid):
        try:
            with open(f"{self.root}/{pid}/environ", "rb") as f:
                raw = f.read()
        except OSError:
            return {}
        env = {}
        for item in raw.split(b"\0"):
            key, sep, value = item.partition(b"=")
            if sep:
                env[key.decode(errors="replace")] = value.decode(errors="replace")
        return env

    def tree(self, roots):
        seen, stack = set(), list(roots)
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            stack.extend(self.children.get(pid, []))
        return seen

    def find_by_markers(self, markers):
        matched = set()
        for pid in self.parent:
            env = self.environ(pid)
            if env and all(env.get(k) == v for k, v in markers):
                matched.add(pid)
        return {pid for pid in matched if self.parent.get(pid) not in matched}


def render_markers(templates, proc, plan):
    fields = {"name": proc.get("name", ""), "role": proc.get("role", ""),
              "index": proc.get("index", ""), "node": proc.get("node", ""),
              "node_index": proc.get("node_index", ""), "step_name": proc.get("step_name", ""),
              "job_id": plan.get("job_id", "")}
    markers = []
    for template in templates:
        key, sep, value = template.partition("=")
        if not sep:
            raise UsageError(f"--marker {template!r}: expected VAR=VALUE")
        try:
            markers.append((key, value.format(**fields)))
        except (KeyError, IndexError) as exc:
            raise UsageError(f"--marker {template!r}: unknown field {exc}") from exc
    return markers


# ---------------------------------------------------------------------------------------
# the audit
# ---------------------------------------------------------------------------------------

def parse_ranges(specs):
    ranges = []
    for spec in specs:
        lo, sep, hi = spec.partition("-")
        if not (lo.isdigit() and (not sep or hi.isdigit())):
            raise UsageError(f"--ignore-range {spec!r}: expected LO-HI or PORT")
        ranges.append((int(lo), int(hi) if sep else int(lo)))
    return ranges


def node_address(plan, node):
    for n in plan.get("nodes", []):
        if str(n.get("name")) == node or str(n.get("index")) == node:
            return str(n.get("address", ""))
    return ""


def audit(plan, node, sockets, table, explicit_pids, marker_templates, ignored, planned_address=False):
    def is_ignored(port):
        return any(lo <= port <= hi for lo, hi in ignored)

    planned = node_address(plan, node)  # where --planned-address ports must be bound
    listeners = defaultdict(set)  # port -> pids
    for _addr, port, pids in sockets:
        listeners[port] |= pids
    report, ok = [], True
    for proc in node_processes(plan, node):
        name = proc.get("name", "?")
        expected = plan_ports(proc)
        if name in explicit_pids:
            roots = {explicit_pids[name]}
        else:
            roots = table.find_by_markers(render_markers(marker_templates, proc, plan))
        tree = table.tree(roots) if roots else set()
        entry = {"process": name, "roots": sorted(roots), "pids": len(tree),
                 "expected": {str(p): k for p, k in sorted(expected.items())},
                 "unexpected": [], "missing": [], "wrong_address": [], "running": bool(tree)}
        if not tree:
            if expected:
                ok = False
                entry["missing"] = [{"port": p, "kind": k, "holder": sorted(listeners.get(p, []))}
                                    for p, k in sorted(expected.items())]
            report.append(entry)
            continue
        seen_ports = set()
        bound_kinds = PLANNED_ADDRESS.get(proc.get("role", ""), set()) if planned_address else set()
        for addr, port, pids in sockets:
            owners = pids & tree
            if not owners:
                continue
            seen_ports.add(port)
            if expected.get(port) in bound_kinds and addr.strip("[]") != planned:
                ok = False
                entry["wrong_address"].append({"port": port, "kind": expected[port], "address": addr,
                                               "planned": planned})
            if port not in expected and not is_ignored(port):
                ok = False
                entry["unexpected"].append({
                    "port": port, "address": addr, "pids": sorted(owners),
                    "comm": sorted({table.comm.get(p, "?") for p in owners})})
        for port, kind in sorted(expected.items()):
            # A scan block (vLLM's VLLM_PORT) is where the program may bind, not what it must:
            # get_open_port() takes the first free ports from its base, as many as it needs.
            if port not in seen_ports and kind != "scan":
                ok = False
                entry["missing"].append({"port": port, "kind": kind,
                                         "holder": sorted(listeners.get(port, set()) - tree)})
        report.append(entry)
    return ok, report


def print_report(ok, report, node):
    for entry in report:
        state = "running" if entry["running"] else "NOT RUNNING"
        print(f"{entry['process']}: {state}, roots {entry['roots']}, {entry['pids']} pid(s), "
              f"plan ports {sorted(int(p) for p in entry['expected'])}")
        for item in entry["unexpected"]:
            print(f"  UNEXPECTED {item['address']}:{item['port']} pid {item['pids']} "
                  f"({', '.join(item['comm'])}): not a Plan port of this process")
        for item in entry["wrong_address"]:
            print(f"  WRONG ADDRESS {item['kind']} port {item['port']} bound at {item['address']}, "
                  f"the Plan's address is {item['planned']}")
        for item in entry["missing"]:
            holder = f"; held by foreign pid {item['holder']}" if item["holder"] else ""
            print(f"  MISSING {item['kind']} port {item['port']}: not listening{holder}")
    print(f"port audit on {node}: {'OK' if ok else 'MISMATCH'}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", required=True, help="Plan JSON (srt-helper plan --json)")
    parser.add_argument("--node", required=True, help="node name (or index) to audit")
    parser.add_argument("--pid", action="append", default=[], metavar="NAME=PID",
                        help="root pid of a Plan process (overrides the markers)")
    parser.add_argument("--marker", action="append", default=None, metavar="VAR=TEMPLATE",
                        help="environment marker(s) finding a process (default "
                             "SRT_STEP={name})")
    parser.add_argument("--ignore-range", action="append", default=[], metavar="LO-HI",
                        help="ports never reported (e.g. 15000-17000 for Mooncake TE RPC)")
    parser.add_argument("--ignore-ephemeral", action="store_true",
                        help="ignore the kernel's ephemeral port range (bind to port 0)")
    parser.add_argument("--planned-address", action="store_true",
                        help="the ports whose address the Plan sets must be bound to the node's "
                             "Plan address only")
    parser.add_argument("--ss-output", default=None, help="use a saved `ss -ltnpH` listing")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        plan = load_plan(args.plan)
        explicit = {}
        for item in args.pid:
            name, sep, pid = item.rpartition("=")
            if not sep or not pid.isdigit():
                raise UsageError(f"--pid {item!r}: expected NAME=PID")
            explicit[name] = int(pid)
        ignored = parse_ranges(args.ignore_range)
        if args.ignore_ephemeral:
            ignored.append(ephemeral_range())
        ok, report = audit(plan, args.node, read_sockets(args.ss_output), ProcTable(),
                           explicit, args.marker or ["SRT_STEP={name}"], ignored, args.planned_address)
    except UsageError as exc:
        print(f"port_audit: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"node": args.node, "ok": ok, "processes": report}, indent=2))
    else:
        print_report(ok, report, args.node)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

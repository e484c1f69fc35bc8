#!/usr/bin/python3
"""Start one node's processes straight from a Plan (``srt-helper plan --json``), without Slurm.

    run_node.py --plan plan.json --node n1 --log-dir DIR [--helper PATH]
                [--roles prefill,decode,agg,kv-relay] [--seconds N]

What a worker step would get on the node, minus the container: the Plan's argv, the job's
contract variables, then the process's own env, with its ``unset_env`` removed. kv-relays start
first (their ranks connect to them); the relay's ``srt-helper`` is replaced by --helper. Each
process runs in its own session and logs to DIR/<log_file>. The CLI holds them until
SIGINT/SIGTERM or --seconds, then ends every group it started (TERM, then KILL).
Also a library for tests/kv: start_node(), stop_all(), wait_healthy().
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

WORKER_ROLES = ("prefill", "decode", "agg")


class Started:
    def __init__(self, proc, popen, log_path):
        self.proc = proc            # the Plan's process object (dict)
        self.popen = popen
        self.log_path = log_path

    @property
    def name(self):
        return self.proc["name"]

    def log_text(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""


def process_env(plan, proc, extra_env=None, base_env=None):
    env = dict(os.environ if base_env is None else base_env)
    for name in proc.get("unset_env", []):
        env.pop(name, None)
    env.update(plan.get("job_env", {}))
    env.update(proc.get("env", {}))
    env.update(extra_env or {})
    return env


def node_processes(plan, node, roles):
    chosen = [p for p in plan["processes"]
              if (p["node"] == node or str(p["node_index"]) == str(node)) and p["role"] in roles]
    # Relays bind the ingress the ranks connect to: they go first.
    return sorted(chosen, key=lambda p: 0 if p["role"] == "kv-relay" else 1)


def start_node(plan, node, log_dir, helper, roles=WORKER_ROLES + ("kv-relay",), extra_env=None,
               edit=None):
    """Start the node's processes; ``edit(proc) -> proc`` may change a copy of each first."""
    os.makedirs(log_dir, exist_ok=True)
    started = []
    for proc in node_processes(plan, node, roles):
        proc = json.loads(json.dumps(proc))  # a copy the edit may change freely
        if edit is not None:
            proc = edit(proc)
        argv = list(proc["argv"])
        if proc["role"] == "kv-relay" and argv and argv[0] == "srt-helper":
            argv[0] = helper
        log_path = os.path.join(log_dir, proc["log_file"])
        with open(log_path, "wb") as log:
            popen = subprocess.Popen(argv, env=process_env(plan, proc, extra_env), stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        started.append(Started(proc, popen, log_path))
        if proc["role"] == "kv-relay":
            wait_relay_bound(started[-1], timeout=10)
    return started


def wait_relay_bound(relay, timeout):
    """A relay prints its endpoints once both are bound (or exits): wait for either."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "->" in relay.log_text() or relay.popen.poll() is not None:
            return
        time.sleep(0.05)


def http_status(url, timeout=1.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def wait_healthy(started, timeout, host="127.0.0.1"):
    """{name: "healthy" | "exited N" | "timeout"} for every worker, polling every 0.2 s."""
    verdict = {}
    deadline = time.monotonic() + timeout
    workers = [s for s in started if s.proc["readiness"]["kind"] == "http"]
    while len(verdict) < len(workers) and time.monotonic() < deadline:
        for s in workers:
            if s.name in verdict:
                continue
            rc = s.popen.poll()
            if rc is not None:
                verdict[s.name] = f"exited {rc}"
                continue
            r = s.proc["readiness"]
            if http_status(f"http://{host}:{r['port']}{r['path']}") == 200:
                verdict[s.name] = "healthy"
        time.sleep(0.2)
    for s in workers:
        verdict.setdefault(s.name, "timeout")
    return verdict


def wait_exit(started, timeout):
    deadline = time.monotonic() + timeout
    for s in started:
        try:
            s.popen.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    return {s.name: s.popen.poll() for s in started}


def stop_all(started, grace=10.0):
    """TERM every group we started, KILL what is left after the grace period."""
    for s in started:
        if s.popen.poll() is None:
            try:
                os.killpg(s.popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + grace
    for s in started:
        try:
            s.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        # The server may be gone while a rank of its group lingers: KILL the group regardless.
        try:
            os.killpg(s.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            s.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plan", required=True)
    parser.add_argument("--node", required=True, help="node name or index")
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--helper", default="srt-helper", help="srt-helper to run kv-relays with")
    parser.add_argument("--roles", default=",".join(WORKER_ROLES + ("kv-relay",)))
    parser.add_argument("--seconds", type=float, default=3600.0, help="stop after this long")
    args = parser.parse_args(argv)
    with open(args.plan, encoding="utf-8") as f:
        plan = json.load(f)
    started = start_node(plan, args.node, args.log_dir, args.helper, tuple(args.roles.split(",")))
    if not started:
        print(f"run_node: no process of roles {args.roles} on node {args.node}", file=sys.stderr)
        return 2
    for s in started:
        print(f"run_node: {s.name} pid {s.popen.pid} log {s.log_path}", file=sys.stderr)
    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(1))
    deadline = time.monotonic() + args.seconds
    try:
        while not stop and time.monotonic() < deadline and any(s.popen.poll() is None for s in started):
            time.sleep(0.2)
    finally:
        stop_all(started)
    failed = [s.name for s in started if s.popen.returncode not in (0, -signal.SIGTERM)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

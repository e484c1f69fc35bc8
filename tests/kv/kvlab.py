"""What the KV-event tests share: the srt-helper under test, a lab-like cluster profile (the
stand-ins from this tree, every node on 127.0.0.1, a random free slice of high ports), the
recipes, the Plan, and the processes of one node (run_node.py).

Knobs: SRT_HELPER (the srt-helper to test; ctest passes the built one).
"""

import glob
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STANDINS = os.path.join(REPO, "tests", "standins")
PORT_AUDIT = os.path.join(REPO, "tests", "tools", "port_audit.py")
PYTHON = "/usr/bin/python3"
NODES = ("n1", "n2", "n3")
sys.path.insert(0, HERE)

import run_node  # noqa: E402  (the runner is also a library)

# Fast stand-ins: no simulated model load.
STANDIN_ENV = {"SRT_STANDIN_LOAD_SECONDS": "0", "PYTHONUNBUFFERED": "1"}


def helper_path():
    path = os.environ.get("SRT_HELPER")
    if path:
        return path
    found = sorted(glob.glob(os.path.join(REPO, "build*", "helper", "srt-helper")), key=os.path.getmtime)
    if not found:
        raise unittest.SkipTest("no srt-helper built: set SRT_HELPER or build one under build*/")
    return found[-1]


def port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False


def free_port_range(width=200, attempts=200):
    """[begin, end] all free now, below the ephemeral range, clear of the engine defaults."""
    for _ in range(attempts):
        begin = random.randrange(20000, 28000 - width)
        if all(port_is_free(p) for p in range(begin, begin + width)):
            return begin, begin + width - 1
    raise RuntimeError(f"no free block of {width} ports in 20000-28000")


def write_profile(directory, capability, port_range):
    path = os.path.join(directory, "cluster.yaml")
    pkg = os.path.join(STANDINS, "pkg")
    lines = [
        "cluster: kv-test",
        "gpus_per_node: 8",
        "visible_devices_env: ROCR_VISIBLE_DEVICES",
        "gpu_sbatch_directive: gres",
        "container_runtime: none",
        f"port_range_begin: {port_range[0]}",
        f"port_range_end: {port_range[1]}",
        "node_sharing: exclusive",
        "frontend_port: 8000",
        f"kv_events_capability: {capability}",
        f"engine_command: [env, PYTHONPATH={pkg}, {PYTHON}, -m, atom.entrypoints.openai_server]",
        f"router_command: [{os.path.join(STANDINS, 'bin', 'atomesh')}]",
        "default_health_check: {max_attempts: 60, interval_seconds: 1}",
        "node_addresses:",
    ] + [f"  {n}: 127.0.0.1" for n in NODES]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def write_recipe(directory, kv_events=True, name="kv-dpa-2x4"):
    """Two 4-GPU DP-attention prefill workers on node 0, two decode workers on node 1."""
    text = f"""name: {name}
model:
  path: "hf:x/y"
  container: "img:kv-test"
resources:
  gpus_per_node: 8
  prefill_nodes: 1
  decode_nodes: 1
  prefill_workers: 2
  decode_workers: 2
  gpus_per_prefill: 4
  gpus_per_decode: 4
backend:
  type: atom
  connector: mooncake
  mooncake_protocol: tcp
  enable_kv_events: {"true" if kv_events else "false"}
  atom_config:
    prefill:
      block-size: 16
      enable-dp-attention: true
    decode:
      block-size: 16
      enable-dp-attention: true
frontend:
  type: atomesh
  enable_multiple_frontends: false
benchmark:
  type: custom
  command: "echo bench"
"""
    path = os.path.join(directory, f"{name}.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def run_helper(args, timeout=60):
    return subprocess.run([helper_path()] + args, capture_output=True, text=True, timeout=timeout)


def make_plan(recipe, profile, capability=None, nodelist="n[1-2]", job_id=7):
    args = ["plan", recipe, "--profile", profile, "--nodelist", nodelist, "--job-id", str(job_id), "--json"]
    if capability:
        args += ["--kv-events-capability", capability]
    res = run_helper(args)
    if res.returncode != 0:
        raise AssertionError(f"srt-helper plan failed ({res.returncode}): {res.stderr}")
    return json.loads(res.stdout)


def write_json(directory, name, obj):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
    return path


class NodeTestCase(unittest.TestCase):
    """A temporary directory, and every process started through self.start() ended on cleanup."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="srt-kv-test-")
        self.tmp = self._tmp.name
        self.started = []
        self.addCleanup(self._tmp.cleanup)
        self.addCleanup(lambda: run_node.stop_all(self.started))

    def start(self, plan, node, behaviour, roles=run_node.WORKER_ROLES + ("kv-relay",), edit=None,
              log_dir=None):
        env = dict(STANDIN_ENV, SRT_STANDIN_KV_BEHAVIOUR=behaviour)
        started = run_node.start_node(plan, node, log_dir or os.path.join(self.tmp, "logs"), helper_path(),
                                      roles=roles, extra_env=env, edit=edit)
        self.started.extend(started)
        return started

    def logs(self, started):
        return "\n".join(f"--- {s.name} ({s.log_path})\n{s.log_text()[-3000:]}" for s in started)

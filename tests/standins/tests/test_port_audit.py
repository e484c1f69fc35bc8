"""tests/tools/port_audit.py against a running ATOM stand-in and a saved ss listing."""

import contextlib
import io
import json
import os
import socket
import tempfile
import unittest

from support import StandinTestCase, free_port_block

import port_audit

SS_SAMPLE = """\
LISTEN 0      4096         0.0.0.0:20000      0.0.0.0:*    users:(("python3",pid=101,fd=19))
LISTEN 0      128             [::]:20001         [::]:*    users:(("python3",pid=102,fd=11),("python3",pid=103,fd=11))
LISTEN 0      100                *:15123            *:*    users:(("python3",pid=102,fd=30))
LISTEN 0      4096       127.0.0.1:631      0.0.0.0:*
"""


class Parsing(unittest.TestCase):
    def test_parse_ss(self):
        sockets = port_audit.parse_ss(SS_SAMPLE)
        self.assertEqual(sockets[0], ("0.0.0.0", 20000, {101}))
        self.assertEqual(sockets[1], ("[::]", 20001, {102, 103}))
        self.assertEqual(sockets[2][1], 15123)
        self.assertEqual(sockets[3], ("127.0.0.1", 631, set()))

    def test_plan_ports_accept_ints_and_lists(self):
        proc = {"ports": {"http": [20000], "engine": 20001, "handshake": [20064, 20065],
                          "dp_base": None}}
        self.assertEqual(port_audit.plan_ports(proc), {20000: "http", 20001: "engine",
                                                       20064: "handshake", 20065: "handshake"})


class LiveAudit(StandinTestCase):
    def setUp(self):
        super().setUp()
        self.base = base = free_port_block(24)
        self.proc = self.start_atom(
            ["--model", "m", "--server-port", base, "--port", base + 1, "--enable-dp-attention",
             "-tp", 2, "--kv-transfer-config",
             json.dumps({"kv_role": "kv_producer", "handshake_port": base + 8})],
            ATOM_DP_MASTER_PORT=base + 2, ATOM_DP_BASE_PORT=base + 3, SRT_STEP="prefill:0",
            ATOM_KV_EVENTS_ENABLE=1, ATOM_KV_EVENTS_ENDPOINT=f"tcp://*:{base + 16}",
            SRT_STANDIN_KV_BEHAVIOUR="offset")
        self.wait_healthy(base, self.proc)

    def plan(self, **port_changes):
        b = self.base
        ports = {"http": [b], "engine": [b + 1], "dp_master": [b + 2], "dp_base": [b + 3],
                 "handshake": [b + 8, b + 9], "kv_events": [b + 16, b + 17]}
        ports.update(port_changes)
        return {"job_id": 7, "nodes": [{"index": 0, "name": "node1", "address": "127.0.0.1",
                                        "roles": ["prefill"]}],
                "processes": [{"name": "prefill:0", "role": "prefill", "index": 0,
                               "node": "node1", "node_index": 0, "step_name": "prefill_0",
                               "argv": [], "env": {}, "unset_env": [], "ports": ports},
                              {"name": "benchmark", "role": "benchmark", "index": 0,
                               "node": "node1", "node_index": 0, "step_name": "benchmark",
                               "argv": [], "env": {}, "unset_env": [], "ports": {}}]}

    def audit(self, plan, *extra):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(plan, f)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                code = port_audit.main(["--plan", f.name, "--node", "node1", *extra])
        finally:
            os.unlink(f.name)
        return code, out.getvalue()

    def test_matching_plan_passes_found_by_marker(self):
        code, out = self.audit(self.plan())
        self.assertEqual(code, 0, out)
        self.assertIn("port audit on node1: OK", out)

    def test_socket_not_in_plan_is_reported(self):
        code, out = self.audit(self.plan(kv_events=[]))
        self.assertEqual(code, 1)
        self.assertIn(f"UNEXPECTED 0.0.0.0:{self.base + 16}", out)
        code, out = self.audit(self.plan(kv_events=[]),
                               "--ignore-range", f"{self.base + 16}-{self.base + 17}")
        self.assertEqual(code, 0, out)

    def test_plan_port_not_listening_is_reported_with_holder(self):
        with socket.socket() as foreign:
            foreign.bind(("0.0.0.0", self.base + 20))
            foreign.listen()
            code, out = self.audit(self.plan(replay=[self.base + 20]))
        self.assertEqual(code, 1)
        self.assertIn(f"MISSING replay port {self.base + 20}: not listening; held by foreign",
                      out)

    def test_a_scan_block_may_be_bound_in_and_need_not_be(self):
        # vLLM's VLLM_PORT block: get_open_port() takes what it needs from its base, so a port of
        # the block nobody listens on is not missing, and one that is listened on is expected.
        code, out = self.audit(self.plan(scan=[self.base + 20, self.base + 21]))
        self.assertEqual(code, 0, out)
        code, out = self.audit(self.plan(kv_events=[], scan=[self.base + 16, self.base + 17, self.base + 18]))
        self.assertEqual(code, 0, out)
        self.assertNotIn("MISSING", out)

    def test_explicit_pid_and_json_report(self):
        plan = self.plan()
        code, out = self.audit(plan, "--pid", f"prefill:0={self.proc.pid}", "--marker",
                               "NO_SUCH_VAR=x", "--json")
        self.assertEqual(code, 0, out)
        report = json.loads(out)
        self.assertTrue(report["ok"])
        self.assertEqual(report["processes"][0]["roots"], [self.proc.pid])

    def test_process_not_running_with_ports_is_a_mismatch(self):
        code, out = self.audit(self.plan(), "--marker", "SRT_STEP={name}-absent")
        self.assertEqual(code, 1)
        self.assertIn("prefill:0: NOT RUNNING", out)

    def test_unknown_node_is_usage_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(self.plan(), f)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                code = port_audit.main(["--plan", f.name, "--node", "node9"])
        finally:
            os.unlink(f.name)
        self.assertEqual(code, 2)


class PlannedAddress(unittest.TestCase):
    """--planned-address: a worker's HTTP port must be bound at its node's Plan address."""

    def audit(self, http_address, *extra):
        pid = os.getpid()  # a live root for the tree; the sockets come from the saved listing
        plan = {"job_id": 7, "nodes": [{"index": 0, "name": "node1", "address": "10.0.0.5", "roles": []}],
                "processes": [{"name": "prefill:0", "role": "prefill", "index": 0, "node": "node1",
                               "node_index": 0, "step_name": "prefill_0",
                               "ports": {"http": [20000], "engine": [20001]}}]}
        ss = (f'LISTEN 0 4096 {http_address}:20000 0.0.0.0:* users:(("python3",pid={pid},fd=19))\n'
              f'LISTEN 0 4096 0.0.0.0:20001 0.0.0.0:* users:(("python3",pid={pid},fd=20))\n')
        with tempfile.TemporaryDirectory() as d:
            with open(f"{d}/plan.json", "w") as f:
                json.dump(plan, f)
            with open(f"{d}/ss.txt", "w") as f:
                f.write(ss)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = port_audit.main(["--plan", f"{d}/plan.json", "--node", "node1", "--ss-output",
                                        f"{d}/ss.txt", "--pid", f"prefill:0={pid}", *extra])
        return code, out.getvalue()

    def test_the_planned_address_passes_and_an_engine_own_port_is_not_held_to_it(self):
        code, out = self.audit("10.0.0.5", "--planned-address")
        self.assertEqual(code, 0, out)

    def test_every_interface_is_a_wrong_address(self):
        for wildcard in ("0.0.0.0", "*", "[::]"):
            code, out = self.audit(wildcard, "--planned-address")
            self.assertEqual(code, 1, out)
            self.assertIn(f"WRONG ADDRESS http port 20000 bound at {wildcard}, the Plan's address is 10.0.0.5",
                          out)
        code, out = self.audit("0.0.0.0")  # without the option: only the ports are audited
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main()

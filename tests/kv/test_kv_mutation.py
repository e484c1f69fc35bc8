"""The mutation test of the stand-ins: is every port the Plan sets really needed?

Two 4-GPU DP-attention workers on one node with KV events in offset mode (docs/design.md "Ports":
ports unique across every process on the node).
(i) as planned, both are healthy and the listening-port audit of the node is clean;
(ii) without any ONE port-carrying flag or variable (on both workers, as a Plan that forgot to
render it would do), ATOM's default is used twice and a worker dies with "Address already in
use"; so does a Plan whose handshake block is one port narrower than ATOM's pp x dp x tp ranks
ATOM_DP_BASE_PORT is the exception: unset, ATOM picks a random free port (the stand-in
binds none), so nothing collides — the audit is what catches the Plan port nobody holds.
"""

import json
import os
import re
import subprocess
import unittest

import kvlab
import run_node

HEALTH_TIMEOUT = 60
IN_USE = re.compile(r"address already in use", re.IGNORECASE)


def drop_flag(flag):
    def edit(proc):
        argv = proc["argv"]
        i = argv.index(flag)
        del argv[i:i + 2]
        return proc
    return edit


def drop_handshake_port(proc):
    argv = proc["argv"]
    i = argv.index("--kv-transfer-config") + 1
    config = json.loads(argv[i])
    del config["handshake_port"]
    argv[i] = json.dumps(config)
    return proc


def narrower_handshake_block(plan, worker):
    """A Plan whose allocator made `worker`'s Mooncake handshake block one port narrower: the port
    after the shortened block goes to whatever the allocator served next (the process holding the
    block's old successor gets the freed port instead). ATOM still binds handshake_port + offset
    for every rank, so the last rank lands on that process's port."""
    w = next(p for p in plan["processes"] if p["name"] == worker)
    freed = max(w["ports"]["handshake"])
    successor = freed + 1
    token = re.compile(rf"(?<!\d){successor}(?!\d)")

    def edit(proc):
        if successor not in [x for v in proc["ports"].values() for x in v]:
            return proc
        proc["argv"] = [token.sub(str(freed), a) for a in proc["argv"]]
        proc["env"] = {k: token.sub(str(freed), v) for k, v in proc["env"].items()}
        for kind, ports in proc["ports"].items():
            proc["ports"][kind] = [freed if x == successor else x for x in ports]
        return proc
    return edit


def drop_env(name):
    def edit(proc):
        del proc["env"][name]
        proc["unset_env"].append(name)  # nor inherited from whoever runs the test
        return proc
    return edit


class PortMutations(kvlab.NodeTestCase):

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._class_tmp = tempfile.TemporaryDirectory(prefix="srt-kv-mutation-")
        d = cls._class_tmp.name
        cls.profile = kvlab.write_profile(d, "offset", kvlab.free_port_range())
        cls.plan = kvlab.make_plan(kvlab.write_recipe(d), cls.profile)

    @classmethod
    def tearDownClass(cls):
        cls._class_tmp.cleanup()

    def start_workers(self, edit=None):
        started = self.start(self.plan, "n1", "offset", roles=("prefill",), edit=edit)
        self.assertEqual(len(started), 2)
        return started

    def audit(self, started):
        only = dict(self.plan, processes=[s.proc for s in started])
        path = kvlab.write_json(self.tmp, "plan-n1.json", only)
        return subprocess.run([kvlab.PYTHON, kvlab.PORT_AUDIT, "--plan", path, "--node", "n1", "--json"],
                              capture_output=True, text=True, timeout=60)

    def test_as_planned_healthy_and_audit_clean(self):
        started = self.start_workers()
        verdict = run_node.wait_healthy(started, HEALTH_TIMEOUT)
        self.assertEqual(set(verdict.values()), {"healthy"}, f"{verdict}\n{self.logs(started)}")
        res = self.audit(started)
        self.assertEqual(res.returncode, 0, f"audit:\n{res.stdout}\n{res.stderr}")

    def assert_collision(self, edit):
        started = self.start_workers(edit)
        verdict = run_node.wait_healthy(started, HEALTH_TIMEOUT)
        dead = [s for s in started if verdict[s.name].startswith("exited") and s.popen.returncode != 0]
        self.assertTrue(dead, f"no worker died: {verdict}\n{self.logs(started)}")
        self.assertTrue(any(IN_USE.search(s.log_text()) for s in dead),
                        f"no 'Address already in use' in the dead worker's log\n{self.logs(dead)}")

    def test_without_server_port(self):
        self.assert_collision(drop_flag("--server-port"))

    def test_without_engine_port(self):
        self.assert_collision(drop_flag("--port"))

    def test_without_handshake_port(self):
        self.assert_collision(drop_handshake_port)

    def test_handshake_block_one_port_narrower(self):
        self.assert_collision(narrower_handshake_block(self.plan, "prefill:0"))

    def test_without_dp_master_port(self):
        self.assert_collision(drop_env("ATOM_DP_MASTER_PORT"))

    def test_without_kv_events_endpoint(self):
        self.assert_collision(drop_env("ATOM_KV_EVENTS_ENDPOINT"))

    def test_without_dp_base_port_the_audit_catches_it(self):
        started = self.start_workers(drop_env("ATOM_DP_BASE_PORT"))
        verdict = run_node.wait_healthy(started, HEALTH_TIMEOUT)
        self.assertEqual(set(verdict.values()), {"healthy"}, f"{verdict}\n{self.logs(started)}")
        res = self.audit(started)
        self.assertEqual(res.returncode, 1, f"audit should fail:\n{res.stdout}")
        for s in started:
            self.assertIn(str(s.proc["ports"]["dp_base"][0]), res.stdout)


if __name__ == "__main__":
    unittest.main()

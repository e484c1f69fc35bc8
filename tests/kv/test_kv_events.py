"""KV events on one node, started straight from the Plan, without Slurm (docs/design.md "KV events"):
every DP rank of every worker reaches a subscriber and no two sockets bind the same address.

a. offset mode (engine offsets the port by rank): each rank publishes on its own advertised port;
b. relay mode (ranks connect): one srt-helper kv-relay per worker, one endpoint per worker;
c. the seed's failure: an engine that binds verbatim with the Plan in offset mode dies with
   "Address already in use"; the capability check refuses that Plan before anything starts.
"""

import json
import os
import subprocess
import unittest

import kvlab
import run_node


def listening_ports():
    """The TCP ports something listens on here (ss -ltnH)."""
    out = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True, timeout=30, check=True).stdout
    return {int(f[3].rsplit(":", 1)[1]) for f in (line.split() for line in out.splitlines()) if len(f) > 3}

HEALTH_TIMEOUT = 60
WATCH_SECONDS = 20


class KvEventsOnOneNode(kvlab.NodeTestCase):

    def plan(self, capability):
        self.profile = kvlab.write_profile(self.tmp, capability, kvlab.free_port_range())
        self.recipe = kvlab.write_recipe(self.tmp)
        return kvlab.make_plan(self.recipe, self.profile)

    def watch(self, endpoints, expect_ranks):
        res = kvlab.run_helper(["kv-watch", "--seconds", str(WATCH_SECONDS), "--expect-ranks", str(expect_ranks),
                                "--json"] + endpoints, timeout=WATCH_SECONDS + 30)
        self.assertEqual(res.returncode, 0, f"kv-watch: {res.stderr}\n{res.stdout}\n{self.logs(self.started)}")
        return {e["endpoint"]: e for e in json.loads(res.stdout)["endpoints"]}

    def node_endpoints(self, plan, started):
        """The advertised endpoints of these processes (every node of the test is 127.0.0.1)."""
        endpoints = [f"tcp://127.0.0.1:{p}" for s in started for p in s.proc["ports"].get("kv_events", [])]
        for e in endpoints:
            self.assertIn(e, plan["kv_event_endpoints"])
        return endpoints

    def test_a_offset_every_rank_on_its_own_port(self):
        plan = self.plan("offset")
        self.assertEqual(plan["kv_events_mode"], "offset")
        self.assertEqual(plan["job_env"]["SRT_KV_EVENT_ENDPOINTS"], ",".join(plan["kv_event_endpoints"]))
        started = self.start(plan, "n1", "offset")
        self.assertEqual([s.name for s in started], ["prefill:0", "prefill:1"])
        verdict = run_node.wait_healthy(started, HEALTH_TIMEOUT)
        self.assertEqual(set(verdict.values()), {"healthy"}, f"{verdict}\n{self.logs(started)}")

        endpoints = self.node_endpoints(plan, started)
        self.assertEqual(len(endpoints), 8, "2 workers x 4 DP ranks on n1")
        seen = self.watch(endpoints, expect_ranks=1)
        for s in started:
            for rank, port in enumerate(s.proc["ports"]["kv_events"]):
                got = seen[f"tcp://127.0.0.1:{port}"]
                self.assertEqual(list(got["ranks"]), [str(rank)], f"{s.name} port {port}: {got}")
                self.assertGreater(got["ranks"][str(rank)]["events"], 0)
                self.assertEqual(got["undecodable"], 0)
        for s in started:
            self.assertNotIn("Address already in use", s.log_text())
            self.assertIsNone(s.popen.poll(), f"{s.name} died\n{self.logs([s])}")

    def test_b_relay_one_endpoint_per_worker(self):
        plan = self.plan("connect")
        self.assertEqual(plan["kv_events_mode"], "relay")
        started = self.start(plan, "n1", "connect")
        self.assertEqual([s.proc["role"] for s in started], ["kv-relay", "kv-relay", "prefill", "prefill"])
        verdict = run_node.wait_healthy(started, HEALTH_TIMEOUT)
        self.assertEqual(set(verdict.values()), {"healthy"}, f"{verdict}\n{self.logs(started)}")
        relays = [s for s in started if s.proc["role"] == "kv-relay"]
        for r in relays:
            self.assertIsNone(r.popen.poll(), f"{r.name} died\n{self.logs([r])}")

        endpoints = self.node_endpoints(plan, relays)
        self.assertEqual(len(endpoints), 2, "one advertised endpoint per worker")
        seen = self.watch(endpoints, expect_ranks=4)
        for e in endpoints:
            self.assertEqual(sorted(seen[e]["ranks"]), ["0", "1", "2", "3"], seen[e])
            self.assertEqual(seen[e]["undecodable"], 0)

        # The ingress is a loopback TCP port the relay binds (a container with a private /tmp
        # shares the host's network), and its ranks' hooks connect there.
        ingresses = [r.proc["argv"][r.proc["argv"].index("--ingress") + 1] for r in relays]
        listening = listening_ports()
        for r, ingress in zip(relays, ingresses):
            self.assertEqual(ingress, f"tcp://127.0.0.1:{r.proc['ports']['kv_ingress'][0]}")
            self.assertIn(r.proc["ports"]["kv_ingress"][0], listening, ingress)
        # A clean stop: TERM ends each relay with status 0 and frees its ingress.
        run_node.stop_all(relays)
        for r in relays:
            self.assertEqual(r.popen.returncode, 0, self.logs([r]))
            self.assertIn("stopped (signal TERM)", r.log_text())
        listening = listening_ports()
        for r in relays:
            self.assertNotIn(r.proc["ports"]["kv_ingress"][0], listening, f"{r.name}'s ingress still bound")

    def test_c_verbatim_engine_collides_in_offset_mode(self):
        plan = self.plan("offset")
        started = self.start(plan, "n1", "verbatim", roles=("prefill",))
        codes = run_node.wait_exit(started, HEALTH_TIMEOUT)
        for s in started:
            self.assertNotIn(codes[s.name], (None, 0), f"{s.name} should have died\n{self.logs([s])}")
            self.assertIn("Address already in use", s.log_text())

    def test_c_capability_none_refuses_the_plan(self):
        self.profile = kvlab.write_profile(self.tmp, "none", kvlab.free_port_range())
        recipe = kvlab.write_recipe(self.tmp)
        res = kvlab.run_helper(["plan", recipe, "--profile", self.profile, "--nodelist", "n[1-2]", "--json"])
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertEqual(res.stdout, "")
        for words in ("backend.enable_kv_events", "img:kv-test", "4 DP ranks", "Address already in use",
                      "ATOM PR #1316"):
            self.assertIn(words, res.stderr)
        # The same refusal from the command line, whatever the profile says.
        res = kvlab.run_helper(["plan", recipe, "--profile", kvlab.write_profile(self.tmp, "offset", (20000, 20199)),
                                "--nodelist", "n[1-2]", "--kv-events-capability", "none"])
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("backend.enable_kv_events", res.stderr)

    def test_relay_refuses_a_taken_endpoint(self):
        begin, _ = kvlab.free_port_range(4)
        ingress = f"ipc://{self.tmp}/in.sock"
        first = subprocess.Popen([kvlab.helper_path(), "kv-relay", "--ingress", ingress, "--bind", f"tcp://*:{begin}"],
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.addCleanup(lambda: (first.poll() is None and first.terminate(), first.wait(10), first.stderr.close()))
        first_line = first.stderr.readline()
        self.assertIn("->", first_line)
        # Same advertised port: refused, naming the endpoint; its own ingress file is not left behind.
        other = f"ipc://{self.tmp}/other.sock"
        res = kvlab.run_helper(["kv-relay", "--ingress", other, "--bind", f"tcp://*:{begin}", "--max-seconds", "5"])
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn(f"tcp://*:{begin}: Address already in use", res.stderr)
        self.assertFalse(os.path.exists(other[len("ipc://"):]))
        # Same ingress (the live relay's socket): refused too, and the first relay keeps its file.
        res = kvlab.run_helper(["kv-relay", "--ingress", ingress, "--bind", f"tcp://*:{begin + 1}", "--max-seconds", "5"])
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("Address already in use", res.stderr)
        self.assertIn(ingress, res.stderr)
        self.assertTrue(os.path.exists(ingress[len("ipc://"):]))
        first.terminate()
        self.assertEqual(first.wait(10), 0)
        self.assertFalse(os.path.exists(ingress[len("ipc://"):]))

    def test_watch_fails_when_ranks_are_missing(self):
        begin, _ = kvlab.free_port_range(4)
        res = kvlab.run_helper(["kv-watch", "--seconds", "1", "--expect-ranks", "1", f"tcp://127.0.0.1:{begin}"])
        self.assertEqual(res.returncode, 1)
        self.assertIn(f"tcp://127.0.0.1:{begin}: 0 rank(s)", res.stderr)


if __name__ == "__main__":
    unittest.main()

"""The three KV-event behaviours of a DP-attention worker (tp4 -> 4 EngineCores)."""

import json
import time
import unittest

import zmq

from support import StandinTestCase, free_port_block, http_post, listening_ports, tree_pids

from kv_events import decode_batch
from standin_common import offset_endpoint

RECEIVE_SECONDS = 15.0


def collect_ranks(sock, want, timeout=RECEIVE_SECONDS):
    """Receive until every rank in want has sent a batch; returns {rank: frames}."""
    seen = {}
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    deadline = time.monotonic() + timeout
    while set(seen) != set(want) and time.monotonic() < deadline:
        if poller.poll(100):
            frames = sock.recv_multipart()
            _ts, events, rank = decode_batch(frames[-1])
            seen.setdefault(rank, frames)
            assert events and events[0][0] == "BlockStored", events
    return seen


class OffsetRule(unittest.TestCase):
    def test_vllm_rule(self):
        self.assertEqual(offset_endpoint("tcp://*:5557", 0), "tcp://*:5557")
        self.assertEqual(offset_endpoint("tcp://*:5557", 3), "tcp://*:5560")
        self.assertEqual(offset_endpoint("ipc:///tmp/kv", 2), "ipc:///tmp/kv_dp2")
        self.assertEqual(offset_endpoint("inproc://kv", 1), "inproc://kv_dp1")


class KvEvents(StandinTestCase):
    def setUp(self):
        super().setUp()
        self.ctx = zmq.Context()
        self.sockets = []

    def tearDown(self):
        for sock in self.sockets:
            sock.close(0)
        self.ctx.term()
        super().tearDown()

    def socket(self, kind):
        sock = self.ctx.socket(kind)
        self.sockets.append(sock)
        return sock

    def start_dpa_worker(self, behaviour, endpoint, base, **env):
        return self.start_atom(
            ["--model", "m", "--server-port", base, "--port", base + 1,
             "--enable-dp-attention", "-tp", 4, "--kv-transfer-config",
             json.dumps({"kv_role": "kv_producer", "kv_connector": "mooncake",
                         "handshake_port": base + 8})],
            name=f"atom-{behaviour}", ATOM_DP_MASTER_PORT=base + 2, ATOM_KV_EVENTS_ENABLE=1,
            ATOM_KV_EVENTS_ENDPOINT=endpoint, SRT_STANDIN_KV_BEHAVIOUR=behaviour, **env)

    def test_verbatim_dpa_dies_with_address_in_use(self):
        base = free_port_block(32)
        proc = self.start_dpa_worker("verbatim", f"tcp://*:{base + 16}", base,
                                     SRT_STANDIN_LOAD_SECONDS=0.5)
        code = proc.wait(60)
        self.assertIsNotNone(code, "server did not exit")
        self.assertNotEqual(code, 0)
        log = proc.output()
        self.assertIn("Address already in use", log)
        self.assertIn("ZMQError", log)
        self.assertIn("during startup", log)

    def test_verbatim_single_rank_uses_atom_framing(self):
        base = free_port_block(32)
        endpoint = f"tcp://127.0.0.1:{base + 16}"
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1],
                               ATOM_KV_EVENTS_ENABLE=1, ATOM_KV_EVENTS_ENDPOINT=endpoint)
        self.wait_healthy(base, proc)
        sub = self.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(endpoint)
        seen = collect_ranks(sub, [0])
        self.assertEqual(len(seen[0]), 1)  # ffdf3bb: one [payload] frame without a topic

    def test_offset_ranks_publish_on_consecutive_ports(self):
        base = free_port_block(32)
        kv = base + 16
        proc = self.start_dpa_worker("offset", f"tcp://*:{kv}", base,
                                     ATOM_KV_EVENTS_TOPIC="kv-events")
        self.wait_healthy(base, proc)
        pids = tree_pids(proc.pid)
        ports = listening_ports()
        for port in range(kv, kv + 4):
            self.assertTrue(ports.get(port, set()) & pids, f"rank port {port} not listening")
        sub = self.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"kv-events")
        for rank in range(4):
            sub.connect(f"tcp://127.0.0.1:{kv + rank}")
        http_post(f"http://127.0.0.1:{base}/v1/completions",
                  {"prompt": " ".join(["w"] * 64), "max_tokens": 2})
        seen = collect_ranks(sub, range(4))
        self.assertEqual(sorted(seen), [0, 1, 2, 3])
        for frames in seen.values():
            self.assertEqual(len(frames), 3)  # [topic, seq(8 bytes), payload]
            self.assertEqual(frames[0], b"kv-events")
            self.assertEqual(len(frames[1]), 8)

    def test_connect_ranks_reach_a_relay_xsub_through_the_hook(self):
        # As the Plan wires relay mode: ATOM's own publisher on a loopback wildcard port (each
        # rank gets its own), Infera's hook connected to the relay's ingress.
        base = free_port_block(32)
        relay = f"tcp://127.0.0.1:{base + 16}"
        xsub = self.socket(zmq.XSUB)
        xsub.bind(relay)
        xsub.send(b"\x01")  # subscribe to everything, as a relay's XPUB side would forward
        proc = self.start_dpa_worker("connect", "tcp://127.0.0.1:*", base,
                                     INFERA_ATOM_KV_EVENTS_ENDPOINT=relay, INFERA_ATOM_KV_EVENTS_CONNECT=1)
        self.wait_healthy(base, proc)
        seen = collect_ranks(xsub, range(4))
        self.assertEqual(sorted(seen), [0, 1, 2, 3])
        for frames in seen.values():
            self.assertEqual(len(frames), 3)  # the hook's [topic, seq, payload]
        pids = tree_pids(proc.pid)
        mine = sorted(p for p, owners in listening_ports().items() if owners & pids)
        self.assertNotIn(base + 16, mine)  # the hook connects; only the relay binds the ingress

    def test_native_publisher_pointed_at_the_ingress_takes_it(self):
        # The old relay wiring (ATOM_KV_EVENTS_ENDPOINT = the ingress): ATOM's own publisher binds
        # it in rank 0 and every other rank dies with Address already in use.
        base = free_port_block(32)
        ingress = f"tcp://127.0.0.1:{base + 16}"
        proc = self.start_dpa_worker("connect", ingress, base, SRT_STANDIN_LOAD_SECONDS=0.5,
                                     INFERA_ATOM_KV_EVENTS_ENDPOINT=ingress, INFERA_ATOM_KV_EVENTS_CONNECT=1)
        code = proc.wait(60)
        self.assertIsNotNone(code, "server did not exit")
        self.assertNotEqual(code, 0)
        self.assertIn("Address already in use", proc.output())

if __name__ == "__main__":
    unittest.main()

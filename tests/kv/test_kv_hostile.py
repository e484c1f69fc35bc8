"""Hostile peers on the KV-event sockets (docs/security.md): kv-relay and kv-watch read from
the network, so a frame of any size, or a subscription of any size, must not grow them without
bound, and the relay must still stop cleanly (exit 0) on SIGTERM after whatever arrived.

Measured before the fix: one 2 MiB subscription grew the relay from 12 MB to 145 MB, and the
relay died of SIGSEGV when that subscriber left or on SIGTERM (libzmq removes and destroys its
subscription trie recursively, one level per byte); a 400 MiB frame ended in the OOM killer.

a. the relay: a 2 MiB subscription on its advertised endpoint and a 64 MiB frame on its
   ingress; it stays alive with its peak RSS bounded, still relays a legitimate 1 MiB batch to
   a subscriber that connects afterwards, and exits 0 on SIGTERM;
b. kv-watch: a publisher sends a 64 MiB frame, then ordinary batches; kv-watch's peak RSS stays
   bounded and it still counts the rank (libzmq drops the connection and reconnects).
"""

import os
import signal
import shutil
import subprocess
import tempfile
import time
import unittest

import msgpack
import zmq

import kvlab

MiB = 1 << 20
# The relay and kv-watch at rest are ~12 MB; a refused frame is never allocated.
RSS_BOUND_KB = 48 * 1024


HOSTILE_SUBSCRIBER = """
import os, sys, time, zmq
s = zmq.Context().socket(zmq.XSUB)
s.connect(sys.argv[1])
s.send(b"\\x01" + b"a" * (2 << 20))
time.sleep(1)
os._exit(0)
"""


def batch(rank, events=1, padding=0):
    """An ATOM-native EventBatch [ts, events, data_parallel_rank] (reference 3.2)."""
    stored = ["BlockStored", [1234], None, list(range(16)), 16, None] + ([b"x" * padding] if padding else [])
    return msgpack.packb([time.time(), [stored] * events, rank])


def peak_rss_kb(popen):
    """The child's peak RSS so far (VmHWM: of this program only, unlike wait4's ru_maxrss, which
    also counts the test process the child was forked from)."""
    with open(f"/proc/{popen.pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError(f"pid {popen.pid} has no VmHWM: it is not running")


class HostilePeers(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="srt-kv-hostile-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.context = zmq.Context()
        self.addCleanup(self.context.destroy, 0)

    def socket(self, kind):
        s = self.context.socket(kind)
        s.setsockopt(zmq.LINGER, 0)
        return s

    def test_a_relay_bounded_and_clean_stop(self):
        begin, _ = kvlab.free_port_range(4)
        ingress = f"ipc://{self.tmp}/in.sock"
        endpoint = f"tcp://127.0.0.1:{begin}"
        relay = subprocess.Popen([kvlab.helper_path(), "kv-relay", "--ingress", ingress, "--bind", f"tcp://*:{begin}"],
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.addCleanup(lambda: relay.poll() is None and relay.kill())
        self.assertIn("->", relay.stderr.readline())

        # A subscriber whose one subscription is 2 MiB long, and a publisher of a 64 MiB frame.
        # The subscriber is a process of its own that exits without closing its socket: libzmq
        # keeps the subscription in the XSUB too, and destroying that deep trie would crash us.
        hostile_sub = subprocess.Popen([kvlab.PYTHON, "-c", HOSTILE_SUBSCRIBER, endpoint])
        self.addCleanup(lambda: hostile_sub.poll() is None and hostile_sub.kill())
        hostile_pub = self.socket(zmq.PUB)
        hostile_pub.connect(ingress)
        time.sleep(0.5)
        hostile_pub.send(b"\xff" * (64 * MiB))
        hostile_sub.wait(10)  # its leaving removes the subscription again: that crashed the relay too
        time.sleep(1)
        self.assertIsNone(relay.poll(), "the relay died after the hostile peers")

        # It still relays: a subscriber that connects now gets a legitimate 1 MiB batch.
        sub = self.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.setsockopt(zmq.RCVTIMEO, 200)
        sub.connect(endpoint)
        pub = self.socket(zmq.PUB)
        pub.connect(ingress)
        big = batch(3, padding=MiB)
        got = None
        deadline = time.monotonic() + 15
        while got is None and time.monotonic() < deadline:  # slow joiners: resend until one arrives
            pub.send(big)
            try:
                got = sub.recv()
            except zmq.Again:
                pass
        self.assertEqual(got, big, "a 1 MiB batch did not come through the relay after the hostile peers")

        peak_kb = peak_rss_kb(relay)
        relay.send_signal(signal.SIGTERM)
        rc = relay.wait(15)
        stderr = relay.stderr.read()
        relay.stderr.close()
        self.assertEqual(rc, 0, f"the relay did not stop cleanly on SIGTERM (exit {rc}):\n{stderr}")
        self.assertIn("stopped (signal TERM)", stderr)
        self.assertLess(peak_kb, RSS_BOUND_KB, f"the relay's peak RSS was {peak_kb} kB")
        self.assertFalse(os.path.exists(ingress[len("ipc://"):]))

    def test_b_watch_bounded_and_still_counting(self):
        begin, _ = kvlab.free_port_range(4)
        pub = self.socket(zmq.PUB)
        pub.bind(f"tcp://127.0.0.1:{begin}")
        watch = subprocess.Popen([kvlab.helper_path(), "kv-watch", "--seconds", "20", "--expect-ranks", "1",
                                  f"tcp://127.0.0.1:{begin}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)
        self.addCleanup(lambda: watch.poll() is None and watch.kill())
        time.sleep(1)  # connected: a PUB drops what it sends before that
        pub.send(b"\xff" * (64 * MiB))
        time.sleep(1)
        peak_kb = peak_rss_kb(watch)  # still running: rank 0 has not published yet
        deadline = time.monotonic() + 18
        while watch.poll() is None and time.monotonic() < deadline:
            pub.send(batch(0))
            time.sleep(0.1)
        rc = watch.wait(10)
        out, err = watch.stdout.read(), watch.stderr.read()
        watch.stdout.close()
        watch.stderr.close()
        self.assertEqual(rc, 0, f"kv-watch did not see rank 0 after the oversized frame:\n{out}\n{err}")
        self.assertLess(peak_kb, RSS_BOUND_KB, f"kv-watch's peak RSS was {peak_kb} kB")


if __name__ == "__main__":
    unittest.main()

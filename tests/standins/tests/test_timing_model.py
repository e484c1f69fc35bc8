"""The ATOM stand-in's timing model (timing_model.py): the rules, then the stand-in applying them.

A decode step grows with the rank's batch, a rank prefills one prompt at a time, a KV transfer
is bytes over bandwidth on a link shared by the decode server's ranks; SRT_STANDIN_TOKEN_MS
stays the step at batch 1 (what the cluster tests set to slow a run down).
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

from support import BENCHMARK, PYTHON, STANDINS, StandinTestCase, free_port_block

sys.path.insert(0, STANDINS)
from timing_model import Queue, TimingModel  # noqa: E402


class Rules(unittest.TestCase):
    def test_decode_step_grows_with_the_batch_from_token_ms(self):
        m = TimingModel(env={"SRT_STANDIN_TOKEN_MS": "300", "SRT_STANDIN_SEQ_US": "100"})
        self.assertAlmostEqual(m.decode_step_s(1), 0.300)
        self.assertAlmostEqual(m.decode_step_s(0), 0.300)
        self.assertAlmostEqual(m.decode_step_s(101), 0.310)
        steps = [m.decode_step_s(b) for b in (1, 8, 64, 256)]
        self.assertEqual(steps, sorted(steps))
        # Throughput of a rank (batch / step) rises with the batch and flattens.
        rates = [b / m.decode_step_s(b) for b in (1, 8, 64, 256, 2048)]
        self.assertEqual(rates, sorted(rates))
        self.assertLess(rates[-1], 1 / m.seq_s)

    def test_prefill_and_kv_costs(self):
        m = TimingModel(env={"SRT_STANDIN_PREFILL_MS": "5", "SRT_STANDIN_PREFILL_US_PER_TOKEN": "10",
                             "SRT_STANDIN_KV_BYTES_PER_TOKEN": "1000", "SRT_STANDIN_KV_GBPS": "8"})
        self.assertAlmostEqual(m.prefill_cost_s(1000), 0.015)
        self.assertAlmostEqual(m.kv_cost_s(1000), 1e6 / 1e9)
        tcp, rdma = TimingModel("tcp", env={}), TimingModel("rdma", env={})
        self.assertGreater(tcp.kv_cost_s(64), rdma.kv_cost_s(64))
        self.assertEqual(TimingModel(env={"SRT_STANDIN_KV_GBPS": "0"}).kv_cost_s(64), 0.0)

    def test_bad_knobs_are_refused_by_name(self):
        for value in ("fast", "-1"):
            with self.assertRaises(SystemExit) as cm:
                TimingModel(env={"SRT_STANDIN_SEQ_US": value})
            self.assertIn("SRT_STANDIN_SEQ_US", str(cm.exception))

    def test_a_queue_serves_one_at_a_time(self):
        async def three():
            q = Queue()
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            done = []

            async def use():
                await q.occupy(0.05)
                done.append(loop.time() - t0)
            await asyncio.gather(use(), use(), use())
            return done
        done = asyncio.run(three())
        self.assertEqual(len(done), 3)
        for i, t in enumerate(sorted(done)):
            self.assertGreaterEqual(t, 0.05 * (i + 1) - 0.005)
        self.assertLess(max(done), 0.15 + 0.1)


class Applied(StandinTestCase):
    """One aggregated stand-in, one rank: measured TPOT follows the model at c1 and c16."""

    def run_point(self, port, concurrency, out_dir):
        argv = [PYTHON, BENCHMARK, "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}",
                "--endpoint", "/v1/completions", "--model", "m", "--tokenizer", "m",
                "--dataset-name", "random", "--random-input-len", 8, "--random-output-len", 6,
                "--random-range-ratio", 1.0, "--num-warmups", 0,
                "--num-prompts", concurrency, "--max-concurrency", concurrency,
                "--request-rate", "inf", "--ignore-eos", "--save-result", "--disable-tqdm",
                "--result-dir", out_dir, "--result-filename", f"c{concurrency}.json"]
        run = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
        with open(os.path.join(out_dir, f"c{concurrency}.json"), encoding="utf-8") as f:
            return json.load(f)

    def test_tpot_follows_the_batch(self):
        base = free_port_block(8)
        knobs = {"SRT_STANDIN_TOKEN_MS": "20", "SRT_STANDIN_SEQ_US": "4000",
                 "SRT_STANDIN_PREFILL_MS": "1", "SRT_STANDIN_PREFILL_US_PER_TOKEN": "0"}
        atom = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1],
                               name="agg", ATOM_DP_BASE_PORT=base + 2, **knobs)
        self.wait_healthy(base, atom)
        model = TimingModel(env=knobs)
        with tempfile.TemporaryDirectory() as out:
            started = time.monotonic()
            one = self.run_point(base, 1, out)
            sixteen = self.run_point(base, 16, out)
            print(f"\nTPOT c1 {one['median_tpot_ms']:.1f} ms (model {model.decode_step_s(1) * 1e3:.0f}), "
                  f"c16 {sixteen['median_tpot_ms']:.1f} ms (model {model.decode_step_s(16) * 1e3:.0f}), "
                  f"{time.monotonic() - started:.1f} s")
        self.assertAlmostEqual(one["median_tpot_ms"], 20, delta=8)
        # All 16 decode together: each step is 20 + 15 x 4 = 80 ms.
        self.assertAlmostEqual(sixteen["median_tpot_ms"], 80, delta=20)
        self.assertGreater(sixteen["output_throughput"], one["output_throughput"] * 3)


if __name__ == "__main__":
    unittest.main()

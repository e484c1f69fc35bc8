"""c2048: 2048 concurrent streaming requests through AToMesh, a DPA prefill and a decode.

The 2P1D recipe's top concurrency. On the lab's two cores this must finish in bounded time
with no failed request, or the stand-ins (not the Plan) would be what a lab run measures.
SRT_STANDIN_SCALE_CONCURRENCY overrides 2048 for a quicker local run.
"""

import json
import os
import subprocess
import tempfile
import time
import unittest

from support import BENCHMARK, PYTHON, StandinTestCase, free_port_block

CONCURRENCY = int(os.environ.get("SRT_STANDIN_SCALE_CONCURRENCY", "2048"))
BUDGET_SECONDS = 180


class C2048(StandinTestCase):
    def test_c2048_streaming_through_router(self):
        base = free_port_block(48)
        prefill = self.start_atom(
            ["--model", "m", "--server-port", base, "--port", base + 1, "--enable-dp-attention",
             "-tp", 2, "--kv-transfer-config",
             json.dumps({"kv_role": "kv_producer", "handshake_port": base + 8})],
            name="prefill", ATOM_DP_MASTER_PORT=base + 2, ATOM_DP_BASE_PORT=base + 3)
        decode = self.start_atom(
            ["--model", "m", "--server-port", base + 16, "--port", base + 17,
             "--max-num-seqs", 2048, "--kv-transfer-config",
             json.dumps({"kv_role": "kv_consumer", "handshake_port": base + 24})],
            name="decode", ATOM_DP_BASE_PORT=base + 19)
        router = self.start_atomesh(
            ["launch", "--pd-disaggregation", "--prefill", f"http://127.0.0.1:{base}",
             "--decode", f"http://127.0.0.1:{base + 16}", "--host", "127.0.0.1",
             "--port", base + 32, "--prometheus-port", base + 33, "--backend", "atom",
             "--policy", "random", "--worker-startup-check-interval", 1])
        self.wait_healthy(base, prefill)
        self.wait_healthy(base + 16, decode)
        self.wait_healthy(base + 32, router, timeout=60)
        with tempfile.TemporaryDirectory() as result_dir:
            argv = [PYTHON, BENCHMARK, "--backend", "openai", "--base-url",
                    f"http://127.0.0.1:{base + 32}", "--endpoint", "/v1/completions",
                    "--model", "m", "--tokenizer", "m", "--dataset-name", "random",
                    "--random-input-len", 16, "--random-output-len", 4,
                    "--random-range-ratio", 1.0, "--num-warmups", 0,
                    "--num-prompts", CONCURRENCY, "--max-concurrency", CONCURRENCY,
                    "--request-rate", "inf", "--ignore-eos", "--save-result",
                    "--result-dir", result_dir, "--result-filename", "scale.json",
                    "--disable-tqdm"]
            started = time.monotonic()
            run = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                                 timeout=BUDGET_SECONDS)
            elapsed = time.monotonic() - started
            self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
            with open(os.path.join(result_dir, "scale.json"), encoding="utf-8") as f:
                result = json.load(f)
        print(f"\nc{CONCURRENCY}: client wall {elapsed:.1f}s, benchmark duration "
              f"{result['duration']:.1f}s, completed {result['completed']}")
        self.assertEqual(result["completed"], CONCURRENCY)
        self.assertEqual(result["total_output_tokens"], 4 * CONCURRENCY)


if __name__ == "__main__":
    unittest.main()

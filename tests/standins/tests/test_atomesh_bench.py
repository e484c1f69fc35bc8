"""AToMesh stand-in with one prefill and one decode ATOM stand-in, and the benchmark client."""

import json
import os
import re
import subprocess
import tempfile
import time
import unittest

from support import (ATOMESH, BENCHMARK, PYTHON, StandinTestCase, free_port_block, http_get,
                     http_post, listening_ports, tree_pids, wait_for)

import atomesh

RESULT_KEYS = {
    "date", "backend", "model_id", "tokenizer_id", "best_of", "num_prompts", "request_rate",
    "burstiness", "max_concurrency", "duration", "benchmark_start_time_unix",
    "benchmark_end_time_unix", "completed", "total_input_tokens", "total_output_tokens",
    "request_throughput", "request_goodput:", "output_throughput", "total_token_throughput",
    "input_lens", "output_lens"} | {
    f"{stat}_{metric}_ms" for stat in ("mean", "median", "std", "p99")
    for metric in ("ttft", "tpot", "itl", "e2el")}


class CommandLine(unittest.TestCase):
    def test_defaults_are_atomeshs(self):
        args = atomesh.parse_command_line(["launch", "--pd-disaggregation",
                                           "--prefill", "http://p:1", "--decode", "http://d:2"])
        self.assertEqual((args.host, args.port, args.prometheus_port), ("0.0.0.0", 30000, 29000))
        self.assertEqual(args.backend, "sglang")  # so ATOM recipes must pass --backend atom
        self.assertEqual(args.policy, "cache_aware")
        self.assertEqual(args.worker_startup_timeout_secs, 1800)
        self.assertEqual(args.prefill, [("http://p:1", None)])

    def test_prefill_bootstrap_positional(self):
        args = atomesh.parse_command_line([
            "--pd-disaggregation", "--prefill", "http://a:1", "9001", "--prefill", "http://b:1",
            "none", "--prefill", "http://c:1", "--decode", "http://d:1", "--runtime", "atom"])
        self.assertEqual(args.prefill, [("http://a:1", 9001), ("http://b:1", None),
                                        ("http://c:1", None)])
        self.assertEqual(args.backend, "atom")

    def test_unknown_flag_exits_2(self):
        run = subprocess.run([ATOMESH, "launch", "--pd-disaggregation", "--nonsense"],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertIn("error:", run.stderr)
        self.assertIn("--nonsense", run.stderr)

    def test_version(self):
        run = subprocess.run([ATOMESH, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 0)
        self.assertTrue(run.stdout.startswith("atomesh "))


class Disaggregated(StandinTestCase):
    """1P (DP-attention tp2) + 1D behind the router, as the srt-slurm AToMesh recipes run."""

    def setUp(self):
        super().setUp()
        base = self.base = free_port_block(48)
        self.prefill_port, self.decode_port = base, base + 16
        self.router_port, self.metrics_port = base + 32, base + 33
        self.prefill = self.start_atom(
            ["--model", "m", "--server-port", base, "--port", base + 1, "--enable-dp-attention",
             "-tp", 2, "--kv-transfer-config", json.dumps({
                 "kv_role": "kv_producer", "kv_connector": "mooncake",
                 "handshake_port": base + 8, "protocol": "tcp"})],
            name="prefill", ATOM_DP_MASTER_PORT=base + 2, ATOM_DP_BASE_PORT=base + 3)
        self.decode = self.start_atom(
            ["--model", "m", "--server-port", base + 16, "--port", base + 17,
             "--kv-transfer-config", json.dumps({
                 "kv_role": "kv_consumer", "kv_connector": "mooncake",
                 "handshake_port": base + 24})],
            name="decode", ATOM_DP_BASE_PORT=base + 19)
        self.router = self.start_atomesh(
            ["launch", "--pd-disaggregation", "--prefill", f"http://127.0.0.1:{base}",
             "--decode", f"http://127.0.0.1:{base + 16}", "--host", "127.0.0.1",
             "--port", self.router_port, "--backend", "atom", "--policy", "random",
             "--prometheus-port", self.metrics_port, "--worker-startup-check-interval", 1,
             "--health-check-interval-secs", 1, "--health-failure-threshold", 2])
        self.wait_healthy(self.router_port, self.router, timeout=60)

    def router_url(self, path):
        return f"http://127.0.0.1:{self.router_port}{path}"

    def workers(self):
        return json.loads(http_get(self.router_url("/workers"))[1])

    def run_benchmark(self, result_dir, prompts=24, concurrency=8, extra=()):
        argv = [PYTHON, BENCHMARK, "--backend", "openai", "--base-url",
                f"http://127.0.0.1:{self.router_port}", "--endpoint", "/v1/completions",
                "--model", "m", "--tokenizer", "m", "--dataset-name", "random",
                "--random-input-len", 32, "--random-output-len", 8, "--random-range-ratio", 1.0,
                "--random-prefix-len", 0, "--random-num-workers", 1,
                "--num-warmups", 2 * concurrency, "--num-prompts", prompts,
                "--max-concurrency", concurrency, "--request-rate", "inf", "--ignore-eos",
                "--trust-remote-code", "--percentile-metrics", "ttft,tpot,itl,e2el",
                "--metric-percentiles", "99", "--save-result", "--result-dir", result_dir,
                "--result-filename", f"bench-c{concurrency}.json", "--disable-tqdm", *extra]
        return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                              timeout=300)

    def test_workers_counts_and_readiness(self):
        body = self.workers()
        self.assertEqual(body["total"], 2)
        self.assertEqual(body["stats"], {"prefill_count": 1, "decode_count": 1,
                                         "regular_count": 0})
        self.assertEqual(http_get(self.router_url("/readiness"))[0], 200)
        self.assertEqual(http_get(self.router_url("/liveness")), (200, b"OK"))
        status, body = http_get(f"http://127.0.0.1:{self.metrics_port}/metrics")
        self.assertEqual(status, 200)
        # AToMesh's own names and labels (observability/metrics/schema.rs, recorder.rs)
        self.assertIn(b'mesh_http_requests_total{method="GET",path="/workers"} 1\n', body)
        # one response per request so far (the harness's health polls, then the four above)
        ok = re.search(rb'^mesh_http_responses_total\{status_code="200",error_code=""\} (\d+)$', body, re.M)
        asked = sum(int(n) for n in re.findall(rb'^mesh_http_requests_total\{[^}]*\} (\d+)$', body, re.M))
        self.assertTrue(ok and int(ok.group(1)) == asked >= 4, body)
        self.assertIn(b"mesh_worker_pool_size 2\n", body)
        self.assertNotIn(b"atomesh_", body)

    def test_benchmark_through_router_writes_result_json(self):
        with tempfile.TemporaryDirectory() as result_dir:
            run = self.run_benchmark(result_dir)
            self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-2000:])
            with open(os.path.join(result_dir, "bench-c8.json"), encoding="utf-8") as f:
                result = json.load(f)
        self.assertLessEqual(RESULT_KEYS, set(result))
        self.assertEqual(result["completed"], 24)
        self.assertEqual(result["total_output_tokens"], 24 * 8)
        self.assertEqual(result["input_lens"], [32] * 24)
        self.assertEqual(result["max_concurrency"], 8)
        self.assertEqual(result["request_rate"], "inf")
        self.assertGreater(result["mean_ttft_ms"], 0)
        self.assertNotIn("ttfts", result)  # only with --save-detailed, as upstream
        self.assertIn("Serving Benchmark Result", run.stdout)

    def test_decode_handshakes_with_prefill_side_channel(self):
        status, body = http_post(self.router_url("/v1/completions"),
                                 {"model": "m", "prompt": "a b c", "max_tokens": 4})
        self.assertEqual(status, 200, body)
        self.assertIn("Mooncake side channel (kv_producer) bound", self.prefill.output())

    def test_decode_dials_each_prefill_rank_by_offset_not_remote_port(self):
        # mooncake_connector.py:1005-1013: remote_handshake_port + remote_dp_rank * tp, one side
        # channel per prefill DP rank (base+8, base+9); remote_port is a number nothing serves.
        status, body = http_post(f"http://127.0.0.1:{self.prefill_port}/v1/completions",
                                 {"model": "m", "prompt": "a b", "max_tokens": 1,
                                  "kv_transfer_params": {"do_remote_decode": True}})
        self.assertEqual(status, 200, body)
        kv = json.loads(body)["kv_transfer_params"]
        self.assertNotIn(kv["remote_port"], listening_ports())
        self.assertEqual(kv["remote_handshake_port"], self.base + 8)
        for rank in (0, 1):
            status, body = http_post(self.router_url("/v1/completions"),
                                     {"model": "m", "prompt": "a b c", "max_tokens": 2,
                                      "data_parallel_rank": rank})
            self.assertEqual(status, 200, body)
        self.assertTrue(wait_for(lambda: all(
            f"Mooncake handshake with 127.0.0.1:{self.base + 8 + r}: engine" in self.decode.output()
            for r in (0, 1)), 10), self.decode.output()[-2000:])

    def test_dead_decode_fails_requests_and_benchmark(self):
        self.decode.stop()
        self.procs.remove(self.decode)
        status, _ = http_post(self.router_url("/v1/completions"),
                              {"model": "m", "prompt": "a", "max_tokens": 2}, timeout=30)
        self.assertEqual(status, 502)
        self.assertEqual(http_get(self.router_url("/health"))[0], 200)
        self.assertEqual(self.workers()["total"], 2)  # still listed, marked unhealthy later
        self.assertTrue(wait_for(lambda: http_get(self.router_url("/readiness"))[0] == 503, 15))
        with tempfile.TemporaryDirectory() as result_dir:
            run = self.run_benchmark(result_dir, prompts=10, concurrency=2)
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("FAIL: request failure rate", run.stderr)
            self.assertTrue(os.path.exists(os.path.join(result_dir, "bench-c2.json")))

    def test_router_binds_only_its_two_ports(self):
        pids = tree_pids(self.router.pid)
        mine = sorted(p for p, owners in listening_ports().items() if owners & pids)
        self.assertEqual(mine, [self.router_port, self.metrics_port])


class RouterDropsRemoteDpRank(StandinTestCase):
    """Issue 22's router mutation: without remote_dp_rank a decode dials rank 0's side channel
    for KV that lives on rank 1, and the transfer fails (500 naming both engines); the lab run
    would fail the same way, where the old stand-in, dialling remote_port, passed."""

    def test_kv_of_a_nonzero_rank_fails_the_request(self):
        base = free_port_block(48)
        self.start_atom(
            ["--model", "m", "--server-port", base, "--port", base + 1, "--enable-dp-attention",
             "-tp", 2, "--kv-transfer-config", json.dumps({
                 "kv_role": "kv_producer", "kv_connector": "mooncake",
                 "handshake_port": base + 8, "protocol": "tcp"})],
            name="prefill", ATOM_DP_MASTER_PORT=base + 2, ATOM_DP_BASE_PORT=base + 3)
        decode = self.start_atom(
            ["--model", "m", "--server-port", base + 16, "--port", base + 17,
             "--kv-transfer-config", json.dumps({
                 "kv_role": "kv_consumer", "kv_connector": "mooncake",
                 "handshake_port": base + 24})],
            name="decode", ATOM_DP_BASE_PORT=base + 19)
        router = self.start_atomesh(
            ["launch", "--pd-disaggregation", "--prefill", f"http://127.0.0.1:{base}",
             "--decode", f"http://127.0.0.1:{base + 16}", "--host", "127.0.0.1",
             "--port", base + 32, "--backend", "atom", "--policy", "round_robin", "--dp-aware",
             "--prometheus-port", base + 33, "--worker-startup-check-interval", 1],
            SRT_STANDIN_ATOMESH_MUTATION="drop-remote-dp-rank")
        self.wait_healthy(base + 32, router, timeout=60)
        answers = [http_post(f"http://127.0.0.1:{base + 32}/v1/completions",
                             {"model": "m", "prompt": "a b c", "max_tokens": 2}) for _ in range(4)]
        codes = sorted(status for status, _ in answers)
        self.assertIn(200, codes)  # rank 0's KV: the channel it dials is the right one
        self.assertIn(500, codes, answers)
        failed = [body for status, body in answers if status == 500]
        self.assertIn(b"the request's KV is on engine", failed[0])
        self.assertIn("remote_dp_rank/remote_tp_size from the router", decode.output())


class Startup(StandinTestCase):
    def test_router_waits_for_slow_workers_before_binding(self):
        base = free_port_block(24)
        worker = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1],
                                 SRT_STANDIN_LOAD_SECONDS=3)
        router = self.start_atomesh(
            ["launch", "--worker-urls", f"http://127.0.0.1:{base}", "--host", "127.0.0.1",
             "--port", base + 8, "--prometheus-port", base + 9, "--backend", "atom",
             "--worker-startup-check-interval", 1])
        time.sleep(1.5)
        self.assertIsNone(http_get(f"http://127.0.0.1:{base + 8}/health")[0])
        self.wait_healthy(base + 8, router, timeout=30)
        self.wait_healthy(base, worker)
        body = json.loads(http_get(f"http://127.0.0.1:{base + 8}/workers")[1])
        self.assertEqual(body["stats"]["regular_count"], 1)


if __name__ == "__main__":
    unittest.main()

"""The vLLM Router stand-in (tests/standins/bin/vllm-router) in front of the vLLM stand-in."""

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import unittest

from support import (PKG, STANDINS, StandinTestCase, free_port_block, http_get, http_post,
                     wait_for)

import vllm_router

VLLM = os.path.join(STANDINS, "bin", "vllm")
ROUTER = os.path.join(STANDINS, "bin", "vllm-router")


class CommandLine(unittest.TestCase):
    def test_defaults_are_the_spec(self):
        args = vllm_router.parse_command_line(["--worker-urls", "http://w:1"])
        self.assertEqual((args.host, args.port), ("127.0.0.1", 30000))
        self.assertEqual((args.prometheus_host, args.prometheus_port), ("127.0.0.1", 29000))
        self.assertEqual((args.worker_startup_timeout_secs, args.worker_startup_check_interval),
                         (600, 30))
        self.assertEqual((args.policy, args.intra_node_data_parallel_size, args.kv_connector),
                         ("cache_aware", 1, "nixl"))

    def test_srt_spank_argv_parses(self):
        # What srt-spank plans for the dsv4 DEP8 variant (corpus-v2.18).
        args = vllm_router.parse_command_line([
            "--worker-urls", "http://n1:20000", "--host", "0.0.0.0", "--port", "8000",
            "--intra-node-data-parallel-size", "8", "--worker-startup-timeout-secs", "10800",
            "--prometheus-port", "20051", "--prometheus-host", "0.0.0.0", "--policy",
            "consistent_hash", "--request-timeout-secs", "14400", "--disable-retries"])
        self.assertEqual((args.worker_urls, args.intra_node_data_parallel_size, args.policy),
                         (["http://n1:20000"], 8, "consistent_hash"))
        self.assertTrue(args.disable_retries)

    def test_clap_refusals_exit_2(self):
        for argv, text in ((["--worker-urls", "http://w:1", "--dp-aware"],
                            "unexpected argument '--dp-aware' found"),
                           (["--port", "1", "--port", "2"], "cannot be used multiple times"),
                           (["--port", "70000"], "--port"),
                           (["--policy", "consistent_hashing"], "invalid choice")):
            with self.subTest(argv=argv):
                err = io.StringIO()
                with self.assertRaises(SystemExit) as ctx, contextlib.redirect_stderr(err):
                    vllm_router.parse_command_line(argv)
                self.assertEqual(ctx.exception.code, 2)
                self.assertIn(text, err.getvalue())
        run = subprocess.run([ROUTER, "--worker-urls", "http://w:1", "--nonsense"],
                             capture_output=True, text=True, timeout=30, env={"PYTHONPATH": PKG})
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("error: unexpected argument '--nonsense' found", run.stderr)
        run = subprocess.run([ROUTER, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual((run.returncode, run.stdout.strip()), (0, "vllm-router 0.1.14"))


class Routed(StandinTestCase):
    def test_dp2_worker_behind_router(self):
        base = free_port_block(64)
        worker_port, dead_port = base, base + 60
        router_port, metrics_port = base + 61, base + 62
        worker = self.start([VLLM, "serve", "m", "--host", "127.0.0.1", "--port", str(worker_port),
                             "--data-parallel-size", "2", "--device-ids", "0,1"],
                            self.env(VLLM_PORT=base + 1), "vllm")
        self.wait_healthy(worker_port, worker)
        router = self.start([ROUTER] + [str(a) for a in [
            "--worker-urls", f"http://127.0.0.1:{worker_port}", f"http://127.0.0.1:{dead_port}",
            "--host", "127.0.0.1", "--port", router_port, "--prometheus-port", metrics_port,
            "--prometheus-host", "127.0.0.1", "--intra-node-data-parallel-size", 2,
            "--worker-startup-timeout-secs", 2, "--worker-startup-check-interval", 1,
            "--policy", "round_robin", "--disable-retries"]], self.env(), "router")
        # Prometheus first, then the workers (the dead one for up to 2 s), then the HTTP port.
        self.assertTrue(wait_for(lambda: http_get(f"http://127.0.0.1:{metrics_port}/metrics")[0] == 200, 10))
        self.wait_healthy(router_port, router, timeout=15)
        url = f"http://127.0.0.1:{router_port}"
        _, body = http_get(url + "/workers")
        workers = json.loads(body)
        self.assertEqual(workers["stats"], {"prefill_count": 0, "decode_count": 0, "regular_count": 2})
        self.assertEqual(sorted(w["url"] for w in workers["workers"]),
                         [f"http://127.0.0.1:{worker_port}@0", f"http://127.0.0.1:{worker_port}@1"])
        self.assertIn(f"http://127.0.0.1:{dead_port} did not become healthy within 2s", router.output())

        for _ in range(2):
            status, body = http_post(url + "/v1/completions", {"model": "m", "prompt": "a b c",
                                                                "max_tokens": 3})
            self.assertEqual(status, 200, body)
            self.assertEqual(json.loads(body)["usage"]["completion_tokens"], 3)
        status, body = http_post(url + "/v1/chat/completions", {
            "model": "m", "messages": [{"role": "user", "content": "x"}], "max_tokens": 2,
            "stream": True})
        self.assertEqual(status, 200, body)
        self.assertTrue(body.endswith(b"data: [DONE]\n\n"), body)

        # round_robin over URL@0, URL@1: each rank got a completion (the X-data-parallel-rank header)
        _, metrics = http_get(f"http://127.0.0.1:{worker_port}/metrics")
        served = {m.group(1) for m in re.finditer(
            r'vllm:request_success_total\{engine="(\d)",finished_reason="length"[^}]*\} ([1-9])', metrics.decode())}
        self.assertEqual(served, {"0", "1"})
        _, metrics = http_get(f"http://127.0.0.1:{metrics_port}/metrics")
        text = metrics.decode()
        self.assertIn('vllm_router_requests_total{route="/v1/completions"} 2', text)
        self.assertIn('vllm_router_requests_total{route="/v1/chat/completions"} 1', text)
        self.assertIn("vllm_router_active_workers 2", text)

        router.popen.send_signal(signal.SIGTERM)
        self.assertEqual(router.wait(10), 0, router.output()[-2000:])


if __name__ == "__main__":
    unittest.main()

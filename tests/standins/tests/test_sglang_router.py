"""The SGLang router stand-in (`python -m sglang_router.launch_router`) in front of ATOM stand-ins."""

import asyncio
import contextlib
import io
import json
import re
import signal
import subprocess
import threading
import unittest

from aiohttp import web

from support import (PKG, PYTHON, StandinTestCase, free_port_block, http_get, http_post,
                     wait_for)

import sglang_router

ROUTER = [PYTHON, "-m", "sglang_router.launch_router"]


class CommandLine(unittest.TestCase):
    def test_defaults_are_the_real_clis(self):
        args = sglang_router.parse_command_line(["--worker-urls", "http://w:1"])
        self.assertEqual((args.host, args.port), ("0.0.0.0", 30000))
        # argparse defaults, not RouterArgs' None (sglang-router 0.3.2 / smg 1.9.0 router_args.py)
        self.assertEqual((args.prometheus_host, args.prometheus_port), ("0.0.0.0", 29000))
        self.assertEqual((args.worker_startup_timeout_secs, args.worker_startup_check_interval),
                         (1800, 30))
        self.assertEqual((args.policy, args.request_timeout_secs), ("cache_aware", 1800))
        self.assertFalse(args.dp_aware or args.disable_retries or args.disable_health_check)

    def test_srt_spank_and_recipe_argv_parse(self):
        args = sglang_router.parse_command_line([
            "--pd-disaggregation", "--prefill", "http://P:20000", "20005",
            "--prefill", "http://P2:20000", "none", "--prefill", "http://P3:20000",
            "--decode", "http://D:20000", "--host", "0.0.0.0", "--port", "8000",
            "--prometheus-port", "20002", "--prometheus-host", "0.0.0.0",
            "--policy", "consistent_hashing", "--dp-aware", "--request-timeout-secs", "14400",
            "--request-id-headers", "x-correlation-id", "--connect-timeout-secs", "900",
            "--disable-health-check", "--disable-retries", "--cache-threshold", "0.3",
            "--balance-abs-threshold", "2", "--balance-rel-threshold", "1.1",
            "--disable-circuit-breaker", "--health-failure-threshold", "100",
            "--health-check-timeout-secs", "600", "--health-check-interval-secs", "30"])
        self.assertEqual(args.prefill, [("http://P:20000", 20005), ("http://P2:20000", None),
                                        ("http://P3:20000", None)])
        self.assertEqual(args.decode, ["http://D:20000"])
        self.assertEqual(args.request_id_headers, ["x-correlation-id"])
        self.assertEqual(args.policy, "consistent_hashing")

    def test_decode_takes_exactly_one_url(self):
        with self.assertRaises(SystemExit) as ctx, contextlib.redirect_stderr(io.StringIO()):
            sglang_router.parse_command_line(["--decode", "http://a:1", "http://b:1"])
        self.assertEqual(ctx.exception.code, 2)

    def test_unknown_option_exits_2(self):
        run = subprocess.run(ROUTER + ["--worker-urls", "http://w:1", "--mini-lb-nonsense"],
                             env={"PYTHONPATH": PKG}, capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("unrecognized arguments: --mini-lb-nonsense", run.stderr)


class Aggregated(StandinTestCase):
    """--dp-aware router in front of one ATOM stand-in with dp 2, plus a URL that never answers."""

    def test_dp_ranks_metrics_dropped_worker_and_sigterm(self):
        base = free_port_block(32)
        worker_port, dead_port = base, base + 8
        router_port, metrics_port = base + 16, base + 17
        # Rank 1 answers no completion: a request that hangs proves the router pinned rank 1
        # (the ATOM stand-in balances unpinned requests to the idle rank 0).
        self.start_atom(["--model", "m", "--server-port", worker_port, "--port", base + 1,
                         "-dp", 2], name="worker", ATOM_DP_MASTER_PORT=base + 2,
                        ATOM_DP_BASE_PORT=base + 3, SRT_STANDIN_WEDGED_DP_RANK=1)
        router = self.start(ROUTER + [str(a) for a in [
            "--worker-urls", f"http://127.0.0.1:{worker_port}", f"http://127.0.0.1:{dead_port}",
            "--host", "127.0.0.1", "--port", router_port, "--prometheus-port", metrics_port,
            "--prometheus-host", "127.0.0.1", "--policy", "round_robin", "--dp-aware",
            "--request-timeout-secs", 14400, "--disable-health-check", "--disable-retries",
            "--request-id-headers", "x-correlation-id", "--connect-timeout-secs", 900,
            "--worker-startup-timeout-secs", 3, "--worker-startup-check-interval", 1]],
            self.env(), "sglang-router")
        # Prometheus is up before the workers are; the HTTP port only after the startup window.
        self.assertTrue(wait_for(lambda: http_get(f"http://127.0.0.1:{metrics_port}/metrics")[0]
                                 == 200, 10), router.output())
        self.wait_healthy(router_port, router, timeout=30)
        url = lambda path: f"http://127.0.0.1:{router_port}{path}"  # noqa: E731

        self.assertIn(f"Worker http://127.0.0.1:{dead_port} did not become healthy within 3s",
                      router.output())
        body = json.loads(http_get(url("/workers"))[1])
        self.assertEqual(body["stats"], {"prefill_count": 0, "decode_count": 0, "regular_count": 2})
        self.assertEqual([w["url"] for w in body["workers"]],
                         [f"http://127.0.0.1:{worker_port}@0", f"http://127.0.0.1:{worker_port}@1"])
        self.assertEqual(http_get(url("/liveness")), (200, b"OK"))
        self.assertEqual(http_get(url("/readiness"))[0], 200)
        self.assertEqual(json.loads(http_get(url("/v1/models"))[1])["data"][0]["id"], "m")

        # round_robin: @0, then @1 (wedged: no answer), then @0 again, streamed through
        status, answer = http_post(url("/v1/completions"),
                                   {"model": "m", "prompt": "a b c", "max_tokens": 3})
        self.assertEqual(status, 200, answer)
        self.assertEqual(json.loads(answer)["usage"]["completion_tokens"], 3)
        status, _ = http_post(url("/v1/completions"),
                              {"model": "m", "prompt": "a b", "max_tokens": 2}, timeout=1.5)
        self.assertIsNone(status)  # data_parallel_rank 1 reached the wedged rank
        status, answer = http_post(url("/v1/completions"),
                                   {"model": "m", "prompt": "a b", "max_tokens": 2,
                                    "stream": True})
        self.assertEqual(status, 200, answer)
        self.assertTrue(answer.endswith(b"data: [DONE]\n\n"), answer[-200:])

        status, metrics = http_get(f"http://127.0.0.1:{metrics_port}/metrics")
        self.assertIn(b'smg_http_requests_total{method="POST",path="/v1/completions"} 3\n', metrics)
        ok = re.search(rb'^smg_http_responses_total\{status_code="200",error_code=""\} (\d+)$',
                       metrics, re.M)
        self.assertTrue(ok and int(ok.group(1)) >= 6, metrics)  # 2 completions + 4 GETs + polls
        self.assertIn(b"smg_worker_pool_size 2\n", metrics)
        self.assertNotIn(b"mesh_", metrics)

        router.popen.send_signal(signal.SIGTERM)
        self.assertEqual(router.wait(5), 0, router.output()[-2000:])


class RecordingWorker:
    """A minimal SGLang-like worker in a thread of the test: /health, /v1/models, /server_info
    (dp_size), and /v1/completions that records each body it gets and answers JSON."""

    def __init__(self, port, dp_size):
        self.port, self.dp_size, self.bodies = port, dp_size, []
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        started.wait(10)

    def _run(self, started):
        asyncio.set_event_loop(self.loop)
        answers = {"/health": {}, "/v1/models": {"data": [{"id": "m"}]},
                   "/server_info": {"model_path": "m", "dp_size": self.dp_size}}

        async def get(request):
            return web.json_response(answers[request.path])

        app = web.Application()
        for path in answers:
            app.router.add_get(path, get)
        app.router.add_post("/v1/completions", self._completion)
        self.runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self.runner.setup())
        self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
        started.set()
        self.loop.run_forever()

    async def _completion(self, request):
        self.bodies.append(await request.json())
        return web.json_response({"choices": [{"text": "x"}], "port": self.port})

    def stop(self):
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class Disaggregated(StandinTestCase):
    def test_prefill_and_decode_get_bootstrap_fields_and_ranks(self):
        base = free_port_block(8)
        prefill, decode = RecordingWorker(base, 2), RecordingWorker(base + 1, 1)
        self.addCleanup(prefill.stop)
        self.addCleanup(decode.stop)
        router = self.start(ROUTER + [str(a) for a in [
            "--pd-disaggregation", "--prefill", f"http://127.0.0.1:{base}", 20005,
            "--decode", f"http://127.0.0.1:{base + 1}", "--host", "127.0.0.1",
            "--port", base + 2, "--prometheus-port", base + 3, "--prometheus-host", "127.0.0.1",
            "--dp-aware", "--worker-startup-check-interval", 1]], self.env(), "sglang-router")
        self.wait_healthy(base + 2, router, timeout=30)
        body = json.loads(http_get(f"http://127.0.0.1:{base + 2}/workers")[1])
        self.assertEqual(body["stats"], {"prefill_count": 2, "decode_count": 1, "regular_count": 0})
        self.assertEqual(sorted(w["bootstrap_port"] for w in body["workers"]
                                if w["worker_type"] == "prefill"), [20005, 20005])
        status, answer = http_post(f"http://127.0.0.1:{base + 2}/v1/completions",
                                   {"model": "m", "prompt": "a", "max_tokens": 2})
        self.assertEqual(status, 200, answer)
        self.assertEqual(json.loads(answer)["port"], base + 1)  # the decode's answer
        self.assertTrue(wait_for(lambda: prefill.bodies and decode.bodies, 5))
        p, d = prefill.bodies[0], decode.bodies[0]
        for got in (p, d):
            self.assertEqual((got["bootstrap_host"], got["bootstrap_port"]), ("127.0.0.1", 20005))
            self.assertEqual(got["prompt"], "a")
        self.assertEqual(p["bootstrap_room"], d["bootstrap_room"])
        self.assertIn(p["data_parallel_rank"], (0, 1))
        self.assertEqual(d["data_parallel_rank"], 0)


if __name__ == "__main__":
    unittest.main()

"""The AgentX stand-in: benchmarks/srt_agentic.sh -> agentx_replay.py -> agentx_aggregate.py.

Runs the lab's srt_agentic.sh through bash against an ATOM stand-in server, with a workspace laid
out as tests/cluster/lab-profile.sh lays out /infmax-workspace (benchmarks/ copied,
utils/bench_serving linked to tests/standins), and checks the per-point files, the aggregate's
schema (InferenceX's process_agentic_result keys), CONC_LIST points, the required server-metric
prefix, validation of a failing server, and a signal during the replay.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from support import PKG, PYTHON, REPO, Proc, free_port_block, http_get, wait_for

BENCHMARKS = os.path.join(REPO, "tests", "cluster", "infmax-workspace", "benchmarks")
STANDINS = os.path.join(REPO, "tests", "standins")

TOP_LEVEL_KEYS = {
    "infmax_model_prefix", "model", "hw", "framework", "precision", "conc", "scenario_type",
    "is_multinode", "num_gpus", "tp", "pp", "dcp_size", "pcp_size", "ep", "dp_attention",
    "kv_offloading", "kv_offload_backend", "allocated_cpu_dram_gb", "num_requests_total",
    "num_requests_successful", "request_accounting", "request_metrics",
}
OPTIONAL_TOP_LEVEL = {"recipe_fingerprint", "dataset", "router", "kv_p2p_transfer"}
ACCOUNTING_KEYS = {"records_total", "records_profiled", "records_dropped_total",
                   "records_warmup_dropped", "records_error_dropped", "error_categories"}
METRICS_KEYS = {"qps", "latency", "tokens", "throughput", "cache"}
LATENCY_KEYS = {"ttft", "e2el", "itl", "tpot", "intvty", "e2e_norm_intvty", "full_response_itl",
                "full_response_intvty"}
TOKEN_KEYS = {"input", "output_actual", "output_expected"}
THROUGHPUT_KEYS = {"input", "output", "total", "duration_seconds", "per_gpu"}
CACHE_KEYS = {"theoretical_cache_hit_rate"}
POINT_FILES = ["benchmark_command.txt", "benchmark.log", "aiperf_artifacts/profile_export.jsonl",
               "aiperf_artifacts/profile_export_aiperf.json",
               "aiperf_artifacts/server_metrics_export.json"]

FAILING_SERVER = r"""
import sys
from aiohttp import web
async def fail(request):
    await request.read()
    return web.json_response({"error": {"message": "boom", "code": 500}}, status=500)
async def health(request):
    return web.json_response({"status": "ok"})
async def metrics(request):
    return web.Response(text="# TYPE atom:requests_running gauge\natom:requests_running 0\n")
app = web.Application()
app.router.add_post("/v1/chat/completions", fail)
app.router.add_get("/health", health)
app.router.add_get("/metrics", metrics)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, handle_signals=True)
"""



class AgentX(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = free_port_block(2)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ATOM_", "SRT_STANDIN_", "USE_ATOMESH"))}
        env.update(PYTHONPATH=PKG, PYTHONUNBUFFERED="1", ATOM_HOST_IP="127.0.0.1")
        cls.atom = Proc([PYTHON, "-m", "atom.entrypoints.openai_server", "--model", "m",
                         "--server-port", str(cls.port), "--port", str(cls.port + 1)],
                        env, "atom")
        ok = wait_for(lambda: cls.atom.popen.poll() is None
                      and http_get(f"http://127.0.0.1:{cls.port}/health")[0] == 200, 30)
        if not ok:
            out = cls.atom.output()
            cls.atom.stop()
            raise RuntimeError(f"ATOM stand-in not healthy in 30 s:\n{out[-3000:]}")

    @classmethod
    def tearDownClass(cls):
        cls.atom.stop()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="agentx-test-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.workspace = os.path.join(self.tmp, "infmax-workspace")
        os.makedirs(os.path.join(self.workspace, "utils"))
        shutil.copytree(BENCHMARKS, os.path.join(self.workspace, "benchmarks"))
        os.symlink(STANDINS, os.path.join(self.workspace, "utils", "bench_serving"))
        self.out = os.path.join(self.tmp, "logs")
        self.procs = []

    def tearDown(self):
        for proc in self.procs:
            proc.stop()

    def env(self, port=None, **extra):
        port = self.port if port is None else port
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.tmp,
               "LANG": "C.UTF-8", "AGENTX_PYTHON": PYTHON,
               "INFMAX_CONTAINER_WORKSPACE": self.workspace,
               "RESULT_DIR": os.path.join(self.out, "agentic"), "AGENTIC_OUTPUT_DIR": self.out,
               "EVAL_ONLY": "false", "MODEL": "m", "MODEL_PREFIX": "dsv4",
               "FRAMEWORK": "atom", "PRECISION": "fp4", "CONC": "4",
               "RESULT_FILENAME": "dsv4_agentic", "DURATION": "3", "TP": "8",
               "RUNNER_TYPE": "mi355x", "SRT_FRONTEND_HOST": "127.0.0.1",
               "SRT_FRONTEND_PORT": str(port), "SRT_AGG_ENDPOINTS": f"127.0.0.1:{port}",
               "AIPERF_REQUIRED_SERVER_METRIC_PREFIX": "atom:"}
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def run_script(self, env, timeout=40):
        return subprocess.run(
            ["bash", os.path.join(self.workspace, "benchmarks", "srt_agentic.sh")], env=env,
            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)

    def load(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return json.load(f)

    def assert_point_files(self, result_dir):
        for rel in POINT_FILES:
            path = os.path.join(result_dir, rel)
            self.assertTrue(os.path.isfile(path), f"missing {path}")

    def assert_schema(self, agg):
        self.assertTrue(TOP_LEVEL_KEYS <= set(agg), sorted(TOP_LEVEL_KEYS - set(agg)))
        self.assertEqual(set(agg) - TOP_LEVEL_KEYS - OPTIONAL_TOP_LEVEL, set())
        self.assertEqual(set(agg["request_accounting"]), ACCOUNTING_KEYS)
        metrics = agg["request_metrics"]
        self.assertEqual(set(metrics), METRICS_KEYS)
        self.assertEqual(set(metrics["latency"]), LATENCY_KEYS)
        self.assertEqual(set(metrics["tokens"]), TOKEN_KEYS)
        self.assertEqual(set(metrics["throughput"]), THROUGHPUT_KEYS)
        self.assertEqual(set(metrics["cache"]), CACHE_KEYS)
        self.assertEqual(agg["scenario_type"], "agentic-coding")

    def test_single_point(self):
        run = self.run_script(self.env())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        result_dir = os.path.join(self.out, "agentic")
        self.assert_point_files(result_dir)
        agg = self.load("dsv4_agentic.json")
        self.assert_schema(agg)
        self.assertEqual(agg["conc"], 4)
        self.assertGreater(agg["num_requests_successful"], 0)
        self.assertEqual((agg["num_gpus"], agg["tp"], agg["hw"]), (8, 8, "mi355x"))
        acc = agg["request_accounting"]
        self.assertEqual(acc["records_warmup_dropped"], 4)
        self.assertEqual(acc["records_error_dropped"], 0)
        latency = agg["request_metrics"]["latency"]
        self.assertTrue(0 < latency["ttft"]["mean"] < 5, latency["ttft"])  # seconds
        for key in ("mean", "p50", "p75", "p90", "p95", "p99", "std"):
            self.assertIn(key, latency["e2el"])
        self.assertGreater(agg["request_metrics"]["cache"]["theoretical_cache_hit_rate"], 0)
        with open(os.path.join(result_dir, "benchmark_command.txt"), encoding="utf-8") as f:
            command = f.read()
        for flag in ("--concurrency 4", "--benchmark-duration 3", "--random-seed 42",
                     "--failed-request-threshold 0.10", "--warmup-grace-period",
                     f"--server-metrics http://127.0.0.1:{self.port}/metrics"):
            self.assertIn(flag, command)
        with open(os.path.join(result_dir, "aiperf_artifacts", "profile_export.jsonl"),
                  encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        phases = {r["metadata"]["benchmark_phase"] for r in records}
        self.assertEqual(phases, {"warmup", "profiling"})
        turns = {}
        for r in records:  # the input grows turn by turn within a conversation
            if r["error"] is None:
                turns.setdefault(r["metadata"]["x_correlation_id"], []).append(
                    (r["metadata"]["turn_index"], r["metrics"]["input_sequence_length"]["value"]))
        grown = [sorted(v) for v in turns.values() if len(v) > 1]
        self.assertTrue(grown)
        for seq in grown:
            self.assertEqual([n for _, n in seq], sorted(n for _, n in seq))
        with open(os.path.join(result_dir, "aiperf_artifacts", "server_metrics_export.json"),
                  encoding="utf-8") as f:
            exported = json.load(f)
        self.assertIn("atom:requests_finished_total", exported["metrics"])

    def test_conc_list_points(self):
        run = self.run_script(self.env(CONC_LIST="2 4", DURATION=2))
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        for c in (2, 4):
            self.assert_point_files(os.path.join(self.out, "agentic", f"conc_{c}"))
            agg = self.load(f"dsv4_agentic_conc{c}.json")
            self.assert_schema(agg)
            self.assertEqual(agg["conc"], c)
            self.assertGreater(agg["num_requests_successful"], 0)
        self.assertFalse(os.path.exists(os.path.join(self.out, "dsv4_agentic.json")))

    def test_required_metric_prefix_missing(self):
        run = self.run_script(self.env(AIPERF_REQUIRED_SERVER_METRIC_PREFIX="sglang:",
                                       DURATION=1))
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("AIPERF_REQUIRED_SERVER_METRIC_PREFIX='sglang:': no scraped server metric "
                      "has that prefix", run.stdout + run.stderr)
        self.assertIn("replay exited 1", run.stderr)
        # the later steps still ran: the aggregate is there and passes validation
        self.assertGreater(self.load("dsv4_agentic.json")["num_requests_successful"], 0)

    def test_failing_server_fails_validation(self):
        port = free_port_block(1)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        server = Proc([PYTHON, "-c", FAILING_SERVER, str(port)], env, "failing")
        self.procs.append(server)
        self.assertTrue(wait_for(lambda: http_get(f"http://127.0.0.1:{port}/health")[0] == 200,
                                 15), server.output())
        run = self.run_script(self.env(port=port, DURATION=2))
        self.assertNotEqual(run.returncode, 0, run.stdout)
        agg = self.load("dsv4_agentic.json")  # the aggregate is still written
        self.assert_schema(agg)
        self.assertEqual(agg["num_requests_successful"], 0)
        self.assertGreater(agg["request_accounting"]["records_error_dropped"], 0)
        self.assertEqual(set(agg["request_accounting"]["error_categories"]), {"HTTPStatusError"})
        out = run.stdout + run.stderr
        self.assertIn("validate: FAIL", out)
        self.assertIn("exceeds AIPERF_FAILED_REQUEST_THRESHOLD 0.1", out)
        self.assertIn("num_requests_successful is 0", out)
        self.assertIn("validate exited 1", run.stderr)

    def test_signal_during_replay_exits_128_plus_n(self):
        env = self.env(DURATION=60)
        proc = subprocess.Popen(
            ["bash", os.path.join(self.workspace, "benchmarks", "srt_agentic.sh")], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, text=True)
        try:
            log = os.path.join(self.out, "agentic", "benchmark.log")

            def profiling():
                try:
                    with open(log, encoding="utf-8") as f:
                        return "profiling: started" in f.read()
                except OSError:
                    return False
            self.assertTrue(wait_for(profiling, 20))
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=20)
            self.assertLess(time.monotonic() - started, 15)
            self.assertEqual(proc.returncode, 128 + signal.SIGTERM, out)
            self.assertIn("nothing is scored", out)
            self.assertFalse(os.path.exists(os.path.join(self.out, "dsv4_agentic.json")))
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def _record(conv, turn, isl, osl, ttft, e2e, itl, start_s, end_s, phase="profiling", error=None):
    return {"metadata": {"session_num": 0, "x_correlation_id": "x", "conversation_id": conv,
                         "turn_index": turn, "request_start_ns": int(start_s * 1e9),
                         "request_ack_ns": int(start_s * 1e9) + 100,
                         "request_end_ns": int(end_s * 1e9), "worker_id": "w",
                         "benchmark_phase": phase, "was_cancelled": False,
                         "cancellation_time_ns": None},
            "metrics": {"input_sequence_length": {"value": isl, "unit": "tokens"},
                        "output_sequence_length": {"value": osl, "unit": "tokens"},
                        "time_to_first_token": {"value": ttft, "unit": "ms"},
                        "request_latency": {"value": e2e, "unit": "ms"},
                        "inter_token_latency": {"value": itl, "unit": "ms"}},
            "error": error}


class AggregateNumbers(unittest.TestCase):
    """The aggregate's numbers on the fixtures of InferenceX's own processor tests."""

    FIXTURE = [_record("A", 0, 100, 50, 30.0, 1000.0, 18.0, 1.0, 2.0),
               _record("A", 1, 180, 60, 35.0, 1100.0, 18.5, 2.5, 3.7),
               _record("B", 0, 120, 40, 32.0, 900.0, 17.5, 1.5, 2.3),
               _record("B", 1, 200, 70, 40.0, 1400.0, 19.0, 3.0, 4.5),
               _record("A", 2, 240, 55, 33.0, 1050.0, 18.2, 4.0, 5.1)]

    def build(self, records, **env):
        import agentx_aggregate
        return agentx_aggregate.build_result(records, {}, {"TP": "4", **env})

    def test_seconds_gpus_and_per_gpu_throughput(self):
        agg = self.build(self.FIXTURE, PP_SIZE="2", DCP_SIZE="2", PCP_SIZE="2")
        latency = agg["request_metrics"]["latency"]
        self.assertAlmostEqual(latency["ttft"]["mean"], 0.034)
        self.assertAlmostEqual(latency["ttft"]["p50"], 0.033)
        self.assertAlmostEqual(latency["e2el"]["mean"], 1.09)
        self.assertAlmostEqual(latency["itl"]["mean"], 0.01824)
        self.assertEqual(agg["num_gpus"], 16)
        per_gpu = agg["request_metrics"]["throughput"]["per_gpu"]
        self.assertAlmostEqual(per_gpu["total_tput_tps"], 16.99695, places=4)
        self.assertAlmostEqual(per_gpu["input_tput_tps"], 12.80488, places=4)
        self.assertEqual(self.build(self.FIXTURE, EP_SIZE="4")["num_gpus"], 4)

    def test_interactivity(self):
        recs = [_record(f"t{i}", 0, 100, 50, 30.0, 1000.0, itl, i + 1, i + 2)
                for i, itl in enumerate((10.0, 20.0, 100.0))]
        intvty = self.build(recs)["request_metrics"]["latency"]["intvty"]
        self.assertAlmostEqual(intvty["p90"], 11.90476, places=4)
        self.assertAlmostEqual(intvty["p75"], 16.66667, places=4)
        self.assertAlmostEqual(intvty["p50"], 50.0)
        self.assertAlmostEqual(intvty["mean"], 23.07692, places=4)
        recs = [_record("f", 0, 100, 50, 30.0, 1000.0, 10.0, 1, 2),
                _record("s", 0, 100, 50, 30.0, 2000.0, 10.0, 2, 4)]
        norm = self.build(recs)["request_metrics"]["latency"]["e2e_norm_intvty"]
        self.assertAlmostEqual(norm["mean"], 33.33333, places=4)
        self.assertAlmostEqual(norm["p75"], 28.57143, places=4)
        self.assertAlmostEqual(norm["std"], 12.5)
        self.assertNotIn("p99", norm)

    def test_request_accounting(self):
        recs = [_record("A", 0, 100, 50, 30.0, 1000.0, 10.0, 1, 2),
                _record("A", 1, 100, 50, 30.0, 1000.0, 10.0, 2, 3, phase="warmup"),
                _record("A", 2, 100, 50, 30.0, 1000.0, 10.0, 3, 4,
                        error={"type": "HTTPStatusError", "message": "500"})]
        agg = self.build(recs)
        self.assertEqual((agg["num_requests_total"], agg["num_requests_successful"]), (3, 1))
        self.assertEqual(agg["request_accounting"], {
            "records_total": 3, "records_profiled": 1, "records_dropped_total": 2,
            "records_warmup_dropped": 1, "records_error_dropped": 1,
            "error_categories": {"HTTPStatusError": 1}})


if __name__ == "__main__":
    unittest.main()

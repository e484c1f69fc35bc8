"""The SGLang launch_server stand-in: flags, exact listening ports, HTTP surface, P/D bootstrap,
port-wait failures, a dying scheduler, SIGTERM."""

import json
import os
import signal
import socket
import subprocess
import time
import unittest

import zmq

from support import (PKG, PYTHON, StandinTestCase, free_port_block, http_get, http_post,
                     listening_ports, tree_pids, wait_for)

import sglang_cli
from kv_events import decode_batch


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


class CommandLine(unittest.TestCase):
    def test_recipe_flags_parse(self):
        args = sglang_cli.parse_args([
            "--model-path", "/model", "--served-model-name", "s", "--host", "0.0.0.0",
            "--port", "20000", "--nccl-port", "20001", "--data-parallel-size", "8",
            "--enable-dp-attention", "--tensor-parallel-size", "8", "--ep", "8",
            "--nccl-init-addr", "10.0.0.1:8300", "--disable-cuda-graph", "--cuda-graph-max-bs", "64",
            "--cuda-graph-bs-decode", "1", "2", "4", "--context-length", "128k",
            "--disaggregation-transfer-backend", "mori", "--moe-a2a-backend", "mori"])
        self.assertEqual((args.dp_size, args.tp_size, args.ep_size), (8, 8, 8))
        self.assertEqual(args.dist_init_addr, "10.0.0.1:8300")
        self.assertEqual(args.cuda_graph_max_bs_decode, 64)
        self.assertEqual(args.cuda_graph_bs_decode, [1, 2, 4])
        self.assertEqual(sglang_cli.human_readable_int(args.context_length), 128000)

    def test_defaults_are_sglangs(self):
        args = sglang_cli.parse_args(["--model-path", "m"])
        self.assertEqual((args.host, args.port, args.nccl_port), ("127.0.0.1", 30000, None))
        self.assertEqual((args.disaggregation_bootstrap_port, args.load_balance_method,
                          args.disaggregation_mode), (8998, "auto", "null"))

    def test_unknown_option_exits_2(self):
        run = subprocess.run([PYTHON, "-m", "sglang.launch_server", "--model-path", "m",
                              "--server-port", "1"], env={"PYTHONPATH": PKG},
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertIn("unrecognized arguments: --server-port", run.stderr)
        run = subprocess.run([PYTHON, "-m", "sglang.launch_server", "--model-path", "m",
                              "--disaggregation-transfer-backend", "rdma"], env={"PYTHONPATH": PKG},
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertIn("invalid choice", run.stderr)

    def test_version_identity(self):
        code = "import sglang; print(sglang.__version__)"
        run = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=30,
                             env={"PYTHONPATH": PKG, "SRT_STANDIN_SGLANG_VERSION": "0.5.19"})
        self.assertEqual(run.stdout.strip(), "0.5.19")


class Server(StandinTestCase):
    def start_sglang(self, args, name="sglang", **env):
        argv = [PYTHON, "-m", "sglang.launch_server", "--model-path", "/models/m"] + [str(a) for a in args]
        return self.start(argv, self.env(**env), name)

    @staticmethod
    def schedulers(proc):
        """The scheduler children (multiprocessing's resource tracker is one more child)."""
        out = []
        for pid in tree_pids(proc.pid) - {proc.pid}:
            try:
                with open(f"/proc/{pid}/comm", encoding="ascii") as f:
                    if f.read().startswith("sglang::schedul"):
                        out.append(pid)
            except OSError:
                pass
        return sorted(out)

    def my_ports(self, proc):
        pids = tree_pids(proc.pid)
        return sorted(p for p, owners in listening_ports().items() if owners & pids)

    def test_aggregated_tp8(self):
        base = free_port_block(4)
        proc = self.start_sglang(["--served-model-name", "served", "--host", "127.0.0.1",
                                  "--port", base, "--nccl-port", base + 1, "--tp-size", 8,
                                  "--enable-metrics", "--trust-remote-code"])
        self.wait_healthy(base, proc)
        url = f"http://127.0.0.1:{base}"
        self.assertTrue(wait_for(lambda: self.my_ports(proc) == [base, base + 1], 10),
                        self.my_ports(proc))
        self.assertEqual(len(self.schedulers(proc)), 1)  # one scheduler for the one TP group
        models = json.loads(http_get(url + "/v1/models")[1])
        self.assertEqual(models["data"][0]["id"], "served")
        before = metric(http_get(url + "/metrics")[1].decode(), "sglang:num_requests_total")
        status, body = http_post(url + "/v1/completions", {"prompt": "a b c d", "max_tokens": 5})
        usage = json.loads(body)["usage"]
        self.assertEqual((status, usage["prompt_tokens"], usage["completion_tokens"]), (200, 4, 5))
        status, body = http_post(url + "/v1/chat/completions", {
            "messages": [{"role": "user", "content": "x"}], "max_tokens": 3, "stream": True,
            "stream_options": {"include_usage": True}})
        events = [e[6:] for e in body.decode().split("\n\n") if e.startswith("data: ")]
        self.assertEqual(events[-1], "[DONE]")
        self.assertEqual(json.loads(events[-2])["usage"]["completion_tokens"], 3)
        self.assertEqual(json.loads(events[0])["object"], "chat.completion.chunk")
        text = http_get(url + "/metrics")[1].decode()
        self.assertEqual(metric(text, "sglang:num_requests_total"), before + 2)
        self.assertIsNotNone(metric(text, "sglang:num_running_reqs"))
        info = json.loads(http_get(url + "/server_info")[1])
        self.assertEqual((info["dp_size"], info["tp_size"], info["kv_events"]), (1, 8, None))

    def test_metrics_off_without_flag(self):
        base = free_port_block(2)
        proc = self.start_sglang(["--port", base, "--nccl-port", base + 1])
        self.wait_healthy(base, proc)
        self.assertEqual(http_get(f"http://127.0.0.1:{base}/metrics")[0], 404)

    def test_dp_attention_ports_and_kv_events(self):
        base = free_port_block(260)
        nccl, kv = base + 250, base + 251
        proc = self.start_sglang([
            "--host", "127.0.0.1", "--port", base, "--nccl-port", nccl, "--tp-size", 8,
            "--dp-size", 4, "--enable-dp-attention", "--kv-events-config",
            json.dumps({"publisher": "zmq", "topic": "kv-events", "endpoint": f"tcp://*:{kv}"})])
        self.wait_healthy(base, proc)
        want = sorted([base, base + 13, nccl] + [base + 233 + i for i in range(7)] +
                      [kv + r for r in range(4)])
        self.assertTrue(wait_for(lambda: self.my_ports(proc) == want, 10), self.my_ports(proc))
        self.assertEqual(len(self.schedulers(proc)), 4)
        info = json.loads(http_get(f"http://127.0.0.1:{base}/server_info")[1])
        self.assertEqual(info["dp_size"], 4)
        self.assertEqual(info["kv_events"], {"publisher": "zmq", "endpoint_host": "*",
                                             "endpoint_port_base": kv, "topic": "kv-events",
                                             "block_size": 1, "dp_size": 4})
        # DP rank 2 publishes on kv + 2, with its rank in the batch.
        ctx = zmq.Context()
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.setsockopt(zmq.LINGER, 0)
        sub.connect(f"tcp://127.0.0.1:{kv + 2}")
        try:
            got = None
            deadline = time.monotonic() + 10
            while got is None and time.monotonic() < deadline:
                http_post(f"http://127.0.0.1:{base}/v1/completions",
                          {"prompt": "a b c", "max_tokens": 1, "data_parallel_rank": 2})
                if sub.poll(300):
                    got = sub.recv_multipart()
            self.assertIsNotNone(got, "no KV event from DP rank 2")
            self.assertEqual(got[0], b"kv-events")
            self.assertEqual(decode_batch(got[-1])[2], 2)
        finally:
            sub.close(0)
            ctx.term()

    def test_busy_derived_port_fails_with_sglang_message(self):
        base = free_port_block(240)
        with socket.socket() as blocker:
            blocker.bind(("127.0.0.1", base + 234))
            blocker.listen()
            proc = self.start_sglang(["--port", base, "--nccl-port", base + 1, "--tp-size", 2,
                                      "--dp-size", 2, "--enable-dp-attention"],
                                     SRT_STANDIN_PORT_WAIT_SECONDS=1)
            self.assertEqual(proc.wait(15), 1)
        self.assertIn(f"port_base at {base + 234} is not available in 1 seconds", proc.output())

    def test_busy_bootstrap_port_is_only_logged(self):
        base = free_port_block(4)
        with socket.socket() as blocker:
            blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            blocker.bind(("127.0.0.1", base + 2))
            blocker.listen()
            proc = self.start_sglang(["--host", "127.0.0.1", "--port", base, "--nccl-port", base + 1,
                                      "--disaggregation-mode", "prefill", "--skip-server-warmup",
                                      "--disaggregation-bootstrap-port", base + 2])
            self.wait_healthy(base, proc)
            self.assertIn("Server error", proc.output())
            self.assertEqual(self.my_ports(proc), [base, base + 1])

    def test_prefill_decode_bootstrap(self):
        p, d = free_port_block(240), free_port_block(4)
        prefill = self.start_sglang(["--host", "127.0.0.1", "--port", p, "--nccl-port", p + 1,
                                     "--disaggregation-mode", "prefill", "--skip-server-warmup",
                                     "--disaggregation-bootstrap-port", p + 2, "--tp-size", 2,
                                     "--dp-size", 2, "--enable-dp-attention",
                                     "--disaggregation-transfer-backend", "mori"], name="prefill")
        decode = self.start_sglang(["--host", "127.0.0.1", "--port", d, "--nccl-port", d + 1,
                                    "--disaggregation-mode", "decode", "--skip-server-warmup",
                                    "--disaggregation-transfer-backend", "mori"], name="decode",
                                   SRT_STANDIN_HANDSHAKE_TIMEOUT_S=1)
        self.wait_healthy(p, prefill)
        self.wait_healthy(d, decode)
        self.assertIn(p + 2, self.my_ports(prefill))
        room = 12345
        body = {"prompt": "a b c", "max_tokens": 4, "bootstrap_host": "127.0.0.1",
                "bootstrap_port": p + 2, "bootstrap_room": room}
        status, out = http_post(f"http://127.0.0.1:{p}/v1/completions", body)
        self.assertEqual((status, json.loads(out)["usage"]["completion_tokens"]), (200, 1))
        status, out = http_post(f"http://127.0.0.1:{d}/v1/completions", body)
        self.assertEqual((status, json.loads(out)["usage"]["completion_tokens"]), (200, 4))
        # No bootstrap: refused; SGLang's own warmup request (the fake bootstrap host, room 0) is
        # served alone, as the launcher's rank canary sends it.
        status, out = http_post(f"http://127.0.0.1:{d}/v1/completions", {"prompt": "a", "max_tokens": 1})
        self.assertEqual(status, 400)
        status, out = http_post(f"http://127.0.0.1:{d}/v1/completions",
                                {"prompt": "a", "max_tokens": 1, "bootstrap_host": "2.2.2.2", "bootstrap_room": 0})
        self.assertEqual(status, 200, out)
        dead = free_port_block(1)
        started = time.monotonic()
        status, out = http_post(f"http://127.0.0.1:{d}/v1/completions",
                                dict(body, bootstrap_port=dead))
        self.assertEqual(status, 500)
        self.assertIn("bootstrap server", json.loads(out)["message"])
        self.assertLess(time.monotonic() - started, 5)

    def test_dead_scheduler_kills_server_and_sigterm_is_clean(self):
        base = free_port_block(240)
        proc = self.start_sglang(["--port", base, "--nccl-port", base + 1, "--tp-size", 2,
                                  "--dp-size", 2, "--enable-dp-attention"])
        self.wait_healthy(base, proc)
        children = self.schedulers(proc)
        self.assertEqual(len(children), 2)
        os.kill(children[-1], signal.SIGKILL)
        self.assertNotIn(proc.wait(10), (None, 0))
        self.assertIn("died with exit code", proc.output())
        self.assertTrue(wait_for(lambda: not (tree_pids(proc.pid) - {proc.pid}), 5))

        base = free_port_block(240)
        proc = self.start_sglang(["--port", base, "--nccl-port", base + 1, "--tp-size", 2,
                                  "--dp-size", 2, "--enable-dp-attention"], name="sigterm")
        self.wait_healthy(base, proc)
        proc.popen.terminate()
        self.assertEqual(proc.wait(10), 0)

    def test_health_503_while_loading(self):
        base = free_port_block(2)
        proc = self.start_sglang(["--port", base, "--nccl-port", base + 1],
                                 SRT_STANDIN_LOAD_SECONDS=2)
        self.assertTrue(wait_for(lambda: http_get(f"http://127.0.0.1:{base}/health")[0] == 503, 10))
        self.wait_healthy(base, proc, timeout=15)
        self.assertEqual(http_get(f"http://127.0.0.1:{base}/health_generate")[0], 200)


if __name__ == "__main__":
    unittest.main()

"""The vLLM stand-in (`vllm serve MODEL ...`, tests/standins/bin/vllm)."""

import json
import os
import re
import signal
import subprocess
import unittest

from support import (PKG, PYTHON, STANDINS, StandinTestCase, free_port_block, http_get,
                     http_post, listening_ports, tree_pids, wait_for)

import vllm_cli

VLLM = os.path.join(STANDINS, "bin", "vllm")


def metric_sum(text, name):
    total = None
    for line in text.splitlines():
        m = re.match(r"^" + re.escape(name) + r"(\{[^}]*\})? (\S+)$", line)
        if m:
            total = (total or 0.0) + float(m.group(2))
    return total


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


class CommandLine(unittest.TestCase):
    def test_plan_argv_parses(self):
        # What srt-spank plans for the dsv4 DEP8 variant (corpus-v2.18, frontend vllm-router).
        args = vllm_cli.parse_args([
            "deepseek-ai/DeepSeek-V4-Pro-0813", "--host", "0.0.0.0", "--port", "20000",
            "--device-ids", "0,1,2,3,4,5,6,7", "--async-scheduling", "--compilation-config",
            '{"mode":3}', "--data-parallel-size", "8", "--distributed-executor-backend", "mp",
            "--enable-auto-tool-choice", "--enable-prefix-caching", "--gpu-memory-utilization",
            "0.86", "--kv-cache-dtype", "fp8", "--max-num-batched-tokens", "8192",
            "--no-disable-hybrid-kv-cache-manager", "--served-model-name", "dsv4",
            "--speculative-config", '{"method": "dspark"}', "--tensor-parallel-size", "1",
            "--tool-call-parser", "deepseek_v4", "--trust-remote-code", "--no-swa-bounded-replay"])
        self.assertEqual((args.model_tag, args.data_parallel_size, args.port), (
            "deepseek-ai/DeepSeek-V4-Pro-0813", 8, 20000))
        self.assertEqual(args.served_model_name, ["dsv4"])
        self.assertEqual(args.speculative_config, {"method": "dspark"})
        self.assertIs(args.enable_prefix_caching, True)
        self.assertIs(args.disable_hybrid_kv_cache_manager, False)
        # FlexibleArgumentParser's underscore spelling
        self.assertEqual(vllm_cli.parse_args(["m", "--max_num_seqs", "4"]).max_num_seqs, 4)

    def test_unknown_option_exits_2(self):
        run = subprocess.run([VLLM, "serve", "m", "--no-such-flag"], capture_output=True,
                             text=True, timeout=30, env={"PYTHONPATH": PKG})
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("unrecognized arguments: --no-such-flag", run.stderr)

    def test_version_and_package(self):
        env = {"PYTHONPATH": PKG, "SRT_STANDIN_VLLM_VERSION": "0.12.0"}
        run = subprocess.run([VLLM, "--version"], capture_output=True, text=True, timeout=30,
                             env=env)
        self.assertEqual((run.returncode, run.stdout.strip()), (0, "0.12.0"))
        run = subprocess.run([PYTHON, "-c", "import vllm; print(vllm.__version__)"],
                             capture_output=True, text=True, timeout=30, env=env)
        self.assertEqual(run.stdout.strip(), "0.12.0", run.stderr)


class Server(StandinTestCase):
    def start_vllm(self, args, name="vllm", **env):
        return self.start([VLLM, "serve"] + [str(a) for a in args], self.env(**env), name)

    def test_tp_aggregated_completions_metrics_sigterm(self):
        base = free_port_block(60)
        port = base
        proc = self.start_vllm(["org/model", "--host", "127.0.0.1", "--port", port,
                                "--tensor-parallel-size", 2, "--device-ids", "0,1",
                                "--enable-auto-tool-choice", "--tool-call-parser", "x"],
                               VLLM_PORT=base + 1, HIP_VISIBLE_DEVICES="4,5,6",
                               SRT_STANDIN_LOAD_SECONDS="0.5")
        self.wait_healthy(port, proc)
        url = f"http://127.0.0.1:{port}"
        status, body = http_get(url + "/v1/models")
        self.assertEqual([m["id"] for m in json.loads(body)["data"]], ["org/model"])
        out = proc.output()
        self.assertIn("GPUs for 2 rank(s): [4, 5] (physical)", out)

        # One EngineCore (no DP), its world-group store on the first VLLM_PORT scan port.
        tree = tree_pids(proc.pid)
        self.assertEqual(comm(proc.pid), "VLLM::APIServer")
        self.assertEqual(sum(1 for p in tree if comm(p) == "VLLM::EngineCor"), 1)
        mine = {port_ for port_, pids in listening_ports().items() if pids & tree}
        self.assertEqual(mine, {port, base + 1})

        status, body = http_post(url + "/v1/completions",
                                 {"model": "org/model", "prompt": "a b c", "max_tokens": 4})
        self.assertEqual(status, 200, body)
        reply = json.loads(body)
        self.assertEqual(reply["usage"], {"prompt_tokens": 3, "completion_tokens": 4,
                                          "total_tokens": 7, "prompt_tokens_details": None})
        status, body = http_post(url + "/v1/chat/completions", {
            "model": "org/model", "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 3, "stream": True, "stream_options": {"include_usage": True}})
        self.assertEqual(status, 200, body)
        events = [e for e in body.decode().split("\n\n") if e]
        self.assertEqual(events[-1], "data: [DONE]")
        self.assertEqual(json.loads(events[-2][6:])["usage"]["completion_tokens"], 3)
        self.assertEqual(json.loads(events[0][6:])["choices"][0]["delta"]["role"], "assistant")
        status, _ = http_post(url + "/v1/completions", {"model": "other", "prompt": "x"})
        self.assertEqual(status, 404)

        _, metrics = http_get(url + "/metrics")
        text = metrics.decode()
        self.assertEqual(metric_sum(text, "vllm:request_success_total"), 2.0)
        self.assertEqual(metric_sum(text, "vllm:generation_tokens_total"), 7.0)
        self.assertEqual(metric_sum(text, "vllm:prompt_tokens_total"), 4.0)
        self.assertEqual(metric_sum(text, "vllm:num_requests_running"), 0.0)
        self.assertEqual(metric_sum(text, "vllm:num_requests_waiting"), 0.0)

        proc.popen.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(10), 0, proc.output()[-2000:])
        children = tree - {proc.pid}
        self.assertTrue(children)
        self.assertTrue(wait_for(lambda: all(not os.path.exists(f"/proc/{p}") for p in children), 5),
                        f"children left: {[p for p in children if os.path.exists(f'/proc/{p}')]}")

    def test_dp2_ports_ranks_and_dead_engine(self):
        base = free_port_block(60)
        port = base
        proc = self.start_vllm(["m", "--host", "127.0.0.1", "--port", port,
                                "--data-parallel-size", 2, "--device-ids", "2,3",
                                "--served-model-name", "served"], VLLM_PORT=base + 1)
        self.wait_healthy(port, proc)
        tree = tree_pids(proc.pid)
        names = sorted(comm(p) for p in tree)
        self.assertEqual(names.count("VLLM::EngineCor"), 2, names)
        self.assertIn("VLLM::DPCoordin", names)
        # As vLLM's coordinator.py: the coordinator has every engine's subscription before the
        # API server says it is up, so no child is still starting once /health answers.
        out = proc.output()
        subscribed = out.find("All engine subscriptions received by DP coordinator")
        self.assertTrue(0 <= subscribed < out.find("Application startup complete."), out[-2000:])
        # The API port and, held by EngineCore_DP0, two ports of the VLLM_PORT scan block (the
        # DP group's and the world group's stores); nothing else listens (ZMQ is ipc://).
        listening = listening_ports()
        mine = {p: pids for p, pids in listening.items() if pids & tree}
        self.assertEqual(mine[port], {proc.pid})
        scan = sorted(p for p in mine if p != port)
        self.assertEqual(len(scan), 2, mine)
        self.assertTrue(all(base + 1 <= p < base + 51 for p in scan), scan)
        self.assertEqual(len({pid for p in scan for pid in mine[p]}), 1)

        url = f"http://127.0.0.1:{port}"
        for rank in (0, 1, 1):
            status, body = self.post_rank(url, rank)
            self.assertEqual(status, 200, body)
        status, _ = self.post_rank(url, 2)
        self.assertEqual(status, 400)
        _, metrics = http_get(url + "/metrics")
        per_engine = {}
        for line in metrics.decode().splitlines():
            m = re.match(r'vllm:request_success_total\{engine="(\d)",finished_reason="length".*\} (\S+)', line)
            if m:
                per_engine[m.group(1)] = float(m.group(2))
        self.assertEqual(per_engine, {"0": 1.0, "1": 2.0})

        # An EngineCore that dies ends the server with a non-zero status.
        engine = next(p for p in tree if comm(p) == "VLLM::EngineCor")
        os.kill(engine, signal.SIGKILL)
        self.assertEqual(proc.wait(10), 1, proc.output()[-2000:])
        self.assertIn("died unexpectedly", proc.output())

    @staticmethod
    def post_rank(url, rank):
        import urllib.error
        import urllib.request
        req = urllib.request.Request(url + "/v1/completions", data=json.dumps(
            {"prompt": "a b", "max_tokens": 2}).encode(), headers={
            "Content-Type": "application/json", "X-data-parallel-rank": str(rank)})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def test_device_ids_outside_the_visible_set_fail(self):
        base = free_port_block(4)
        proc = self.start_vllm(["m", "--port", base, "--tensor-parallel-size", 2,
                                "--device-ids", "1,2"], ROCR_VISIBLE_DEVICES="6,7")
        self.assertEqual(proc.wait(20), 1, proc.output()[-2000:])
        self.assertIn("device 2 is not visible", proc.output())


if __name__ == "__main__":
    unittest.main()

"""The ATOM server stand-in: flags, default ports, bind failures, rank deaths, identity, NICs."""

import contextlib
import io
import json
import os
import socket
import subprocess
import tempfile
import time
import unittest

from support import (PKG, PYTHON, StandinTestCase, free_port_block, http_get, http_post,
                     listening_ports, port_is_free, tree_pids, wait_for)

import atom_cli
from atom_engine_core import SINGLE_PRIMARY, mooncake_config, rank_nics, sysfs_hcas


def fake_sysfs(test, *hcas, active=()):
    """A temp SYSFS with class/infiniband/<hca> for each name; `active` ones get an ACTIVE port."""
    root = tempfile.TemporaryDirectory(prefix="standin-sysfs-")
    test.addCleanup(root.cleanup)
    for hca in hcas:
        os.makedirs(os.path.join(root.name, "class", "infiniband", hca, "ports", "1"))
        with open(os.path.join(root.name, "class", "infiniband", hca, "ports", "1", "state"),
                  "w", encoding="utf-8") as f:
            f.write("4: ACTIVE\n" if hca in active else "1: DOWN\n")
    return root.name


class CommandLine(unittest.TestCase):
    def test_recipe_flags_parse_with_both_spellings(self):
        args = atom_cli.parse_args([
            "--model", "deepseek-ai/DeepSeek-V4-Pro", "--trust-remote-code", "-tp", "8",
            "--kv_cache_dtype", "fp8", "--gpu-memory-utilization", "0.85",
            "--max-num-seqs", "256", "--block-size", "16", "--no-enable_prefix_caching",
            "--enable-dp-attention", "--enable-tbo", "--kv-transfer-config", "{}",
            "--max_num_batched_tokens", "8192", "--cudagraph-capture-sizes", "[1,2,4]",
            "--method", "mtp", "--num-speculative-tokens", "2", "--enable-expert-parallel"])
        self.assertEqual(args.kv_cache_dtype, "fp8")
        self.assertFalse(args.enable_prefix_caching)
        self.assertEqual(args.enable_tbo, "prefill")  # a bare --enable-tbo is prefill only
        self.assertEqual(args.max_num_batched_tokens, 8192)
        self.assertEqual(args.tensor_parallel_size, 8)

    def test_defaults_are_atoms(self):
        args = atom_cli.parse_args([])
        self.assertEqual((args.port, args.server_port, args.host), (8006, 8000, "0.0.0.0"))
        self.assertEqual(args.model, "Qwen/Qwen3-0.6B")
        self.assertTrue(args.enable_prefix_caching)
        self.assertIsNone(args.enable_tbo)
        self.assertEqual(atom_cli.parse_args(["--enable-tbo", "all"]).enable_tbo, "all")

    def test_group_flags_have_no_underscore_twin(self):
        # ATOM's FlexibleArgumentParser aliases only parser-level flags, not group ones.
        atom_cli.parse_args(["--eplb-enable", "--dcp-config", "{}"])
        with self.assertRaises(SystemExit) as ctx, contextlib.redirect_stderr(io.StringIO()):
            atom_cli.parse_args(["--dcp_config", "{}"])
        self.assertEqual(ctx.exception.code, 2)

    def test_unknown_flag_exits_2_with_argparse_message(self):
        run = subprocess.run([PYTHON, "-m", "atom.entrypoints.openai_server", "--model", "m",
                              "--dist-init-addr", "10.0.0.1:5000"],
                             env={"PYTHONPATH": PKG}, capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertIn("unrecognized arguments: --dist-init-addr", run.stderr)

    def test_version_identity_is_env_overridable(self):
        code = "import atom, atom._version as v; print(atom.__version__, v.__git_commit__)"
        run = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=30,
                             env={"PYTHONPATH": PKG, "SRT_STANDIN_ATOM_COMMIT": "abc1234"})
        self.assertEqual(run.stdout.split(), ["0.1.4.dev113+gabc1234", "abc1234"])
        run = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=30,
                             env={"PYTHONPATH": PKG})
        self.assertEqual(run.stdout.split(), ["0.1.4.dev113+g4e0848dcd", "4e0848dcd"])


class MooncakeNic(unittest.TestCase):
    """rank_nics: the NIC(s) a rank registers on, as ATOM's MooncakeConnector picks them."""
    RDMA = {"protocol": "rdma"}

    def nics(self, device, hcas, env=None, cfg=None):
        _, nics, how, _ = rank_nics(cfg or self.RDMA, env or {}, device, hcas)
        return nics, how

    def test_rdma_n_preferred_then_ionic_n_then_rdma_n(self):
        self.assertEqual(self.nics(3, {"rdma3", "ionic_3"}), (["rdma3"], "auto: device index 3"))
        self.assertEqual(self.nics(3, {"ionic_3", "rdma2"})[0], ["ionic_3"])
        self.assertEqual(self.nics(3, {"ionic_2"})[0], ["rdma3"])
        self.assertEqual(self.nics(3, set())[0], ["rdma3"])

    def test_configured_list_wins_and_every_rank_gets_all_of_it(self):
        env = {"ATOM_MOONCAKE_IB_DEVICE": "rdma7", "ROCR_VISIBLE_DEVICES": "4,5"}
        cfg = {"protocol": "rdma", "ib_device": "ionic_4, ionic_0,ionic_4"}
        for device in (0, 1):
            self.assertEqual(self.nics(device, {"rdma4"}, env, cfg),
                             (["ionic_4", "ionic_0"], "configured"))
        self.assertEqual(self.nics(1, {"rdma5"}, env), (["rdma7"], "configured"))

    def test_visible_devices_entry_not_the_index(self):
        # Slurm ConstrainDevices-style: the worker sees GPUs 4,5 as devices 0,1.
        env = {"ROCR_VISIBLE_DEVICES": "4,5", "HIP_VISIBLE_DEVICES": "0,1"}
        self.assertEqual(self.nics(1, {"ionic_1", "ionic_5"}, env),
                         (["ionic_5"], "auto: ROCR_VISIBLE_DEVICES entry 5"))
        env = {"ROCR_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": "2,3",
               "CUDA_VISIBLE_DEVICES": "6"}
        self.assertEqual(self.nics(0, set(), env), (["rdma2"], "auto: HIP_VISIBLE_DEVICES entry 2"))
        self.assertEqual(self.nics(0, set(), {"CUDA_VISIBLE_DEVICES": "6"})[0], ["rdma6"])

    def test_tcp_selects_no_nic(self):
        self.assertEqual(self.nics(0, {"rdma0"}, cfg={"protocol": "tcp", "ib_device": "rdma0"}),
                         ([], "tcp"))

    def test_matched_rails_refused_with_several_nics(self):
        cfg = {"protocol": "rdma", "ib_device": "ionic_0,ionic_1"}
        # "0" is no off switch in ATOM: any non-blank value is "auto" or a list of HCAs.
        for rails in ("auto", "ionic_0,ionic_1", "1", "0"):
            with self.subTest(rails=rails), self.assertRaises(ValueError) as ctx:
                rank_nics(cfg, {"ATOM_MOONCAKE_MATCHED_RAILS": rails}, 0,
                          {"ionic_0": True, "ionic_1": True})
            self.assertEqual(str(ctx.exception), SINGLE_PRIMARY)
        self.assertEqual(rank_nics(cfg, {"ATOM_MOONCAKE_MATCHED_RAILS": " "}, 0, set())[3], [])

    def test_matched_rails_with_one_primary(self):
        root = fake_sysfs(self, "ionic_0", "ionic_1", "ionic_2", "mlx5_0",
                          active=("ionic_0", "ionic_2", "mlx5_0"))
        hcas = sysfs_hcas(root)
        env = {"ATOM_MOONCAKE_MATCHED_RAILS": "auto", "ROCR_VISIBLE_DEVICES": "2"}
        self.assertEqual(rank_nics(self.RDMA, env, 0, hcas, root)[3], ["ionic_0", "ionic_2"])
        env["ATOM_MOONCAKE_MATCHED_RAILS"] = "ionic_1,ionic_2"
        self.assertEqual(rank_nics(self.RDMA, env, 0, hcas, root)[3], ["ionic_1", "ionic_2"])
        for rails in ("ionic_0,ionic_1", "ionic_2,ionic_9"):  # primary missing, unknown HCA
            env["ATOM_MOONCAKE_MATCHED_RAILS"] = rails
            with self.subTest(rails=rails), self.assertRaisesRegex(ValueError, "existing local"):
                rank_nics(self.RDMA, env, 0, hcas, root)
        env.update(ATOM_MOONCAKE_MATCHED_RAILS="auto", ROCR_VISIBLE_DEVICES="1")  # ionic_1 down
        with self.assertRaisesRegex(ValueError, "no readable ACTIVE RDMA port"):
            rank_nics(self.RDMA, env, 0, hcas, root)

    def test_mooncake_config_of_a_multi_connector(self):
        mc = {"kv_connector": "mooncake", "kv_role": "kv_producer", "ib_device": "rdma1"}
        self.assertIs(mooncake_config(mc), mc)
        self.assertIs(mooncake_config({"kv_connector": "multi", "connectors": [
            {"kv_connector": "lmcache_offload"}, mc]}), mc)
        self.assertIsNone(mooncake_config({"kv_role": "kv_producer"}))  # ATOM's default: moriio


class Server(StandinTestCase):
    def test_defaults_bound_when_flags_missing(self):
        needed = [8006, 29500, 6301, 6302, 5557, 5558]
        busy = [p for p in needed if not port_is_free(p)]
        if busy:
            self.skipTest(f"default ports busy on this machine: {busy}")
        http = free_port_block(1)
        proc = self.start_atom(
            ["--model", "m", "--server-port", http, "--enable-dp-attention", "-tp", 2,
             "--kv-transfer-config", '{"kv_role": "kv_producer", "kv_connector": "mooncake"}'],
            ATOM_KV_EVENTS_ENABLE=1, SRT_STANDIN_KV_BEHAVIOUR="offset")
        self.wait_healthy(http, proc)
        pids = tree_pids(proc.pid)
        ports = listening_ports()
        for port in needed + [http]:
            self.assertTrue(ports.get(port, set()) & pids, f"port {port} not bound by the server")
        status, body = http_get(f"http://127.0.0.1:{http}/kv_transfer_info")
        self.assertEqual(json.loads(body), {"tp_size": 1, "dp_size": 2,
                                            "kv_role": "kv_producer", "handshake_port": 6301})
        status, body = http_get(f"http://127.0.0.1:{http}/server_info")
        self.assertEqual(json.loads(body)["dp_size"], 2)

    def test_env_ports_replace_defaults_and_nothing_else_listens(self):
        base = free_port_block(16)
        proc = self.start_atom(
            ["--model", "m", "--served-model-name", "served", "--server-port", base,
             "--port", base + 1, "--enable-dp-attention", "-tp", 2, "--kv-transfer-config",
             json.dumps({"kv_role": "kv_consumer", "handshake_port": base + 8})],
            ATOM_DP_MASTER_PORT=base + 2, ATOM_DP_BASE_PORT=base + 3)
        self.wait_healthy(base, proc)
        pids = tree_pids(proc.pid)
        mine = sorted(p for p, owners in listening_ports().items() if owners & pids)
        self.assertEqual(mine, [base, base + 1, base + 2, base + 3, base + 8, base + 9])
        status, body = http_get(f"http://127.0.0.1:{base}/v1/models")
        self.assertEqual(json.loads(body)["data"][0]["id"], "served")

    def test_completions_stream_and_not(self):
        base = free_port_block(4)
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1])
        self.wait_healthy(base, proc)
        url = f"http://127.0.0.1:{base}/v1/completions"
        status, body = http_post(url, {"model": "m", "prompt": "a b c d", "max_tokens": 5})
        usage = json.loads(body)["usage"]
        self.assertEqual((status, usage["prompt_tokens"], usage["completion_tokens"]), (200, 4, 5))
        status, body = http_post(url, {"prompt": "x", "max_tokens": 3, "stream": True})
        events = [line[6:] for line in body.decode().split("\n\n") if line.startswith("data: ")]
        self.assertEqual(events[-1], "[DONE]")
        self.assertEqual(json.loads(events[-2])["usage"]["completion_tokens"], 3)
        status, _ = http_post(url, {"model": "other", "prompt": "x"})
        self.assertEqual(status, 400)  # validate_model

    def test_eos_honoured_only_without_ignore_eos(self):
        base = free_port_block(4)
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1],
                               SRT_STANDIN_EOS_AFTER=2)
        self.wait_healthy(base, proc)
        url = f"http://127.0.0.1:{base}/v1/completions"
        tokens = lambda body: json.loads(http_post(url, body)[1])["usage"]["completion_tokens"]  # noqa: E731
        self.assertEqual(tokens({"prompt": "x", "max_tokens": 6}), 2)
        self.assertEqual(tokens({"prompt": "x", "max_tokens": 6, "ignore_eos": True}), 6)

    def test_health_waits_for_model_load(self):
        base = free_port_block(4)
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1],
                               SRT_STANDIN_LOAD_SECONDS=2)
        time.sleep(0.8)
        self.assertIsNone(http_get(f"http://127.0.0.1:{base}/health")[0])  # not bound yet
        self.wait_healthy(base, proc, timeout=15)

    def test_http_port_taken_fails_after_engine_start(self):
        base = free_port_block(4)
        with socket.socket() as blocker:
            blocker.bind(("0.0.0.0", base))
            blocker.listen()
            proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1])
            self.assertEqual(proc.wait(30), 3)  # uvicorn's STARTUP_FAILURE
        self.assertIn("address already in use", proc.output())

    def test_engine_port_taken_kills_server(self):
        base = free_port_block(4)
        with socket.socket() as blocker:
            blocker.bind(("0.0.0.0", base + 1))
            blocker.listen()
            proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1,
                                    "--enable-dp-attention", "-tp", 2])
            self.assertEqual(proc.wait(30), 1)
        self.assertIn("Address already in use", proc.output())

    def test_dead_rank_ends_server(self):
        base = free_port_block(4)
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1,
                                "--enable-dp-attention", "-tp", 2],
                               ATOM_DP_MASTER_PORT=base + 2)
        self.wait_healthy(base, proc)
        ranks = sorted(tree_pids(proc.pid) - {proc.pid})
        self.assertGreaterEqual(len(ranks), 2)
        subprocess.run(["kill", "-9", str(ranks[-1])], check=True, timeout=10)
        self.assertEqual(proc.wait(15), 1)
        self.assertIn("died with exit code", proc.output())
        self.assertTrue(wait_for(lambda: not (tree_pids(proc.pid) - {proc.pid}), 10))

    def test_sigterm_is_a_clean_stop(self):
        base = free_port_block(4)
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1,
                                "--enable-dp-attention", "-tp", 2],
                               ATOM_DP_MASTER_PORT=base + 2)
        self.wait_healthy(base, proc)
        proc.popen.terminate()
        self.assertEqual(proc.wait(15), 0)

    def test_prefill_ranks_log_their_nic(self):
        base = free_port_block(16)
        root = fake_sysfs(self, *[f"ionic_{i}" for i in range(8)])
        kv = {"kv_role": "kv_producer", "kv_connector": "mooncake", "protocol": "rdma",
              "handshake_port": base + 8}
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1,
                                "--enable-dp-attention", "-tp", 2,
                                "--kv-transfer-config", json.dumps(kv)],
                               ATOM_DP_MASTER_PORT=base + 2, SRT_STANDIN_SYSFS=root,
                               ROCR_VISIBLE_DEVICES="4,5")
        self.wait_healthy(base, proc)
        for dp in (0, 1):
            self.assertIn(f"Mooncake (rdma) dp={dp} tp=0 device {dp} registered on ionic_{4 + dp} "
                          f"(auto: ROCR_VISIBLE_DEVICES entry {4 + dp})", proc.output())

    def test_matched_rails_with_a_nic_list_refused_at_startup(self):
        base = free_port_block(4)
        kv = {"kv_role": "kv_producer", "kv_connector": "mooncake", "protocol": "rdma",
              "handshake_port": base + 2}
        proc = self.start_atom(["--model", "m", "--server-port", base, "--port", base + 1,
                                "--kv-transfer-config", json.dumps(kv)],
                               SRT_STANDIN_SYSFS=fake_sysfs(self, "ionic_0", "ionic_1"),
                               ATOM_MOONCAKE_IB_DEVICE="ionic_0,ionic_1",
                               ATOM_MOONCAKE_MATCHED_RAILS="auto")
        self.assertEqual(proc.wait(30), 1)
        self.assertIn("ValueError: " + SINGLE_PRIMARY, proc.output())
        self.assertIsNone(http_get(f"http://127.0.0.1:{base}/health")[0])

    def test_atomesh_entrypoint_variable_refused(self):
        base = free_port_block(2)
        proc = self.start_atom(["--model", "m", "--server-port", base],
                               USE_ATOMESH_ENTRYPOINTS=1)
        self.assertEqual(proc.wait(30), 3)
        self.assertIn("USE_ATOMESH_ENTRYPOINTS", proc.output())


if __name__ == "__main__":
    unittest.main()

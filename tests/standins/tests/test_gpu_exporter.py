"""The GPU power exporter stand-in (tests/standins/gpu_exporter.py, AMD device-metrics-exporter):
its /metrics as srtctl's collector parses it, the GPU discovery, the port rules and the faults."""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from support import PYTHON, REPO, STANDINS, StandinTestCase, free_port_block, http_get, wait_for

import gpu_exporter

EXPORTER = os.path.join(STANDINS, "gpu_exporter.py")
FAKE_SYSFS = os.path.join(REPO, "tests", "fixtures", "rsmi", "make-fake-sysfs.py")
GPU_LABELS = {"card_model", "container", "deployment_mode", "gpu_compute_partition_type", "gpu_id",
              "gpu_memory_partition_type", "gpu_partition_id", "hostname", "job_id", "job_partition",
              "job_user", "namespace", "pod", "serial_number"}
FAMILIES = ("gpu_power_usage", "gpu_gfx_activity", "gpu_junction_temperature")


def families(text):
    return {family.name: family for family in text_string_to_metric_families(text)}


class Model(unittest.TestCase):
    def test_serials_are_stable_and_unique_per_gpu_and_host(self):
        serials = {gpu_exporter.serial_number(host, i, "P") for host in ("n1", "n2") for i in range(8)}
        self.assertEqual(len(serials), 16)
        self.assertEqual(gpu_exporter.serial_number("n1", 3, "P"), gpu_exporter.serial_number("n1", 3, "P"))
        self.assertTrue(all(s.startswith("P") for s in serials))

    def test_readings_are_deterministic_plausible_and_vary(self):
        now = 1_800_000_000.0
        self.assertEqual(gpu_exporter.reading("n1", 0, now), gpu_exporter.reading("n1", 0, now))
        powers = set()
        for step in range(0, 60, 5):
            power, gfx, temp = gpu_exporter.reading("n1", 0, now + step)
            self.assertTrue(150 <= power <= 700 and 0 <= gfx <= 100 and 30 < temp < 70, (power, gfx, temp))
            powers.add(power)
        self.assertGreater(max(powers) - min(powers), 100)
        # GPUs do not move in lockstep.
        self.assertGreater(len({gpu_exporter.reading("n1", i, now)[0] for i in range(8)}), 4)

    def test_sysfs_count_is_rocm_smis(self):
        with tempfile.TemporaryDirectory() as root:
            subprocess.run([PYTHON, FAKE_SYSFS, root], check=True, timeout=30)
            self.assertEqual(gpu_exporter.sysfs_gpu_count(root), 8)  # card0, the BMC's VGA, is not one
        with tempfile.TemporaryDirectory() as root:
            for card, vendor, vbios in (("card1", "0x1002", True), ("card2", "0x1002", False),
                                        ("card3", "0x10de", True), ("card4", "0x1002", True)):
                device = os.path.join(root, "class", "drm", card, "device")
                os.makedirs(device)
                with open(os.path.join(device, "vendor"), "w") as f:
                    f.write(vendor + "\n")
                if vbios:
                    open(os.path.join(device, "vbios_version"), "w").close()
            os.makedirs(os.path.join(root, "class", "drm", "card1-DP-1"))
            self.assertEqual(gpu_exporter.sysfs_gpu_count(root), 2)
            self.assertEqual(gpu_exporter.sysfs_gpu_count(os.path.join(root, "none")), 0)

    def test_command_line_takes_go_flags(self):
        args = gpu_exporter.parse_command_line(["-bind=127.0.0.1", "--monitor-nic", "-monitor-gpu=false",
                                                "-amd-metrics-config", "/x.json"])
        self.assertEqual((args.bind, args.monitor_nic, args.monitor_gpu, args.amd_metrics_config),
                         ("127.0.0.1", True, False, "/x.json"))
        args = gpu_exporter.parse_command_line([])
        self.assertEqual((args.bind, args.port, args.gpus, args.amd_metrics_config),
                         ("0.0.0.0", None, None, "/etc/metrics/config.json"))
        run = subprocess.run([PYTHON, EXPORTER, "-nonsense"], capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 2)
        self.assertIn("flag provided but not defined: -nonsense", run.stderr)
        run = subprocess.run([PYTHON, EXPORTER, "-version"], capture_output=True, text=True, timeout=30)
        self.assertEqual((run.returncode, run.stdout.splitlines()[0]), (0, "Version : v1.5.2"))


class Serving(StandinTestCase):
    def exporter(self, *args, name="gpu-exporter", **env):
        env.setdefault("NODE_NAME", "lab-node1")
        env.setdefault("DS_NODE_NAME", "")  # outranks NODE_NAME; keep the caller's out
        env.setdefault("METRICS_EXPORTER_PORT", "")
        env.setdefault("SRT_STANDIN_SYSFS", "/nonexistent")
        return self.start([PYTHON, EXPORTER] + [str(a) for a in args], self.env(**env), name)

    def scrape(self, port, proc, timeout=10.0):
        def ready():
            if proc.popen.poll() is not None:
                self.fail(f"{proc.name} exited with {proc.popen.returncode}:\n{proc.output()[-3000:]}")
            status, body = http_get(f"http://127.0.0.1:{port}/metrics")
            return body.decode() if status == 200 else None
        text = wait_for(ready, timeout)
        self.assertTrue(text, f"{proc.name}: no /metrics in {timeout}s")
        return text

    def test_metrics_as_the_collector_parses_them(self):
        port = free_port_block(1)
        proc = self.exporter("--port", port, "--host", "127.0.0.1", "--serial-prefix", "LAB")
        text = self.scrape(port, proc)
        found = families(text)
        for name in FAMILIES:
            self.assertEqual(found[name].type, "gauge", name)
            samples = found[name].samples
            self.assertEqual(len(samples), 8, name)
            for sample in samples:
                self.assertEqual(set(sample.labels), GPU_LABELS, name)
                self.assertEqual((sample.labels["hostname"], sample.labels["gpu_partition_id"]), ("lab-node1", "0"))
            self.assertEqual(sorted(int(s.labels["gpu_id"]) for s in samples), list(range(8)))
            self.assertEqual(len({s.labels["serial_number"] for s in samples}), 8)
            self.assertTrue(all(s.labels["serial_number"].startswith("LAB") for s in samples))
        self.assertIn("# HELP gpu_power_usage GPU Power usage in Watts\n# TYPE gpu_power_usage gauge\n", text)
        self.assertEqual([(s.labels, s.value) for s in found["gpu_nodes_total"].samples],
                         [({"hostname": "lab-node1"}, 8.0)])
        power = {s.labels["gpu_id"]: s.value for s in found["gpu_power_usage"].samples}
        self.assertTrue(all(150 <= w <= 700 for w in power.values()), power)
        self.assertTrue(all(0 <= s.value <= 100 for s in found["gpu_gfx_activity"].samples))
        # The same GPU keeps its serial across scrapes.
        again = families(self.scrape(port, proc))
        self.assertEqual({s.labels["serial_number"] for s in again["gpu_power_usage"].samples},
                         {s.labels["serial_number"] for s in found["gpu_power_usage"].samples})
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            self.assertEqual(resp.headers["Content-Type"], "text/plain; version=0.0.4; charset=utf-8")
        self.assertEqual(http_get(f"http://127.0.0.1:{port}/gpu_metrics"), (404, b"404 page not found\n"))
        self.assertEqual(http_get(f"http://127.0.0.1:{port}/metrics/")[0], 404)
        self.assertIn(f'msg="serving requests on 127.0.0.1:{port}"', proc.output())

    def test_sigterm_exits_zero_promptly(self):
        port = free_port_block(1)
        proc = self.exporter("--port", port, "-bind", "127.0.0.1", "--gpus", 2)
        self.scrape(port, proc)
        started = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        self.assertEqual(proc.wait(5), 0, proc.output())
        self.assertLess(time.monotonic() - started, 2.0)
        self.assertIn("Received signal: terminated, shutting down...", proc.output())

    def test_port_from_environment_and_config_file(self):
        port = free_port_block(2)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as config:
            json.dump({"ServerPort": port, "CommonConfig": {"MetricsFieldPrefix": "amd_"}}, config)
        self.addCleanup(os.unlink, config.name)
        proc = self.exporter("-amd-metrics-config", config.name, "-bind", "127.0.0.1", "--gpus", 1)
        found = families(self.scrape(port, proc))
        self.assertEqual(sorted(found), ["amd_gpu_gfx_activity", "amd_gpu_junction_temperature",
                                         "amd_gpu_nodes_total", "amd_gpu_power_usage"])
        # METRICS_EXPORTER_PORT outranks the file's ServerPort.
        other = port + 1
        proc2 = self.exporter("-amd-metrics-config", config.name, "-bind", "127.0.0.1", "--gpus", 1,
                              name="gpu-exporter-env", METRICS_EXPORTER_PORT=other)
        self.assertIn("amd_gpu_power_usage", families(self.scrape(other, proc2)))

    def test_port_taken_exits_one(self):
        port = free_port_block(1)
        first = self.exporter("--port", port, "--host", "127.0.0.1", "--gpus", 1)
        self.scrape(port, first)
        second = self.exporter("--port", port, "--host", "127.0.0.1", "--gpus", 1, name="second")
        self.assertEqual(second.wait(5), 1, second.output())
        self.assertIn("Port may already be in use.", second.output())

    def test_gpus_from_the_fake_sysfs(self):
        port = free_port_block(1)
        with tempfile.TemporaryDirectory() as root:
            subprocess.run([PYTHON, FAKE_SYSFS, root], check=True, timeout=30)
            proc = self.exporter("--port", port, "--host", "127.0.0.1", SRT_STANDIN_SYSFS=root,
                                 SRT_STANDIN_GPU_COUNT=3)
            found = families(self.scrape(port, proc))
        self.assertEqual(len(found["gpu_power_usage"].samples), 8)
        proc.stop()
        self.procs.remove(proc)
        proc = self.exporter("--port", port, "--host", "127.0.0.1", name="no-sysfs", SRT_STANDIN_GPU_COUNT=3)
        self.assertEqual(len(families(self.scrape(port, proc))["gpu_power_usage"].samples), 3)

    def test_fault_drop_gpu(self):
        port = free_port_block(1)
        proc = self.exporter("--port", port, "--host", "127.0.0.1", SRT_STANDIN_EXPORTER_DROP_GPU="3")
        found = families(self.scrape(port, proc))
        for name in FAMILIES:
            self.assertEqual(sorted(int(s.labels["gpu_id"]) for s in found[name].samples), [0, 1, 2, 4, 5, 6, 7])
        self.assertEqual(found["gpu_nodes_total"].samples[0].value, 7.0)

    def test_fault_dead_after(self):
        port = free_port_block(1)
        proc = self.exporter("--port", port, "--host", "127.0.0.1", SRT_STANDIN_EXPORTER_DEAD_AFTER_SECONDS="1")
        self.scrape(port, proc)
        self.assertEqual(proc.wait(5), 1, proc.output())
        self.assertIn("gpuagent unreachable", proc.output())
        self.assertIsNone(http_get(f"http://127.0.0.1:{port}/metrics")[0])

    def test_fault_start_delay(self):
        port = free_port_block(1)
        started = time.monotonic()
        proc = self.exporter("--port", port, "--host", "127.0.0.1", "--gpus", 1,
                             SRT_STANDIN_EXPORTER_START_DELAY_SECONDS="1")
        self.scrape(port, proc)
        self.assertGreaterEqual(time.monotonic() - started, 1.0)


if __name__ == "__main__":
    unittest.main()

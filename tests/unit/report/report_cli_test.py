#!/usr/bin/python3
"""srt-helper report on the fixture runs, as a user types it: tables, PNG, SVG, JSON, errors.

usage: report_cli_test.py SRT_HELPER FIXTURES_DIR   (FIXTURES_DIR = tests/fixtures/results)
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zlib

HELPER = FIXTURES = None

# Drawn points in the fixtures: 4101 c4 c8 c16 c32 and the failed-but-measured c64;
# 4102 c256 c512 c1024 (c2048 completed nothing, 4101 c128 is missing: listed, not drawn).
DRAWN = {"srt-point-0-c4", "srt-point-0-c8", "srt-point-0-c16", "srt-point-0-c32",
         "srt-point-0-c64", "srt-point-1-c256", "srt-point-1-c512", "srt-point-1-c1024"}


def report(*args):
    return subprocess.run([HELPER, "report", *args], capture_output=True, text=True, timeout=240)


def check_png(test, path):
    with open(path, "rb") as f:
        data = f.read()
    test.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n", "PNG signature")
    length, kind = struct.unpack(">I4s", data[8:16])
    test.assertEqual((length, kind), (13, b"IHDR"), "first chunk is IHDR")
    width, height = struct.unpack(">II", data[16:24])
    crc = struct.unpack(">I", data[29:33])[0]
    test.assertEqual(crc, zlib.crc32(data[12:29]), "IHDR CRC")
    test.assertGreater(width, 400)
    test.assertGreater(height, 300)
    test.assertEqual(data[-12:], b"\x00\x00\x00\x00IEND\xaeB`\x82", "ends with IEND")
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        image.load()  # decodes every pixel: a truncated or corrupt stream fails here
        test.assertEqual(image.size, (width, height))
        # Not a blank canvas: lines, markers and text in several colours.
        test.assertGreater(len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []), 8)


def svg_point_ids(path):
    root = ET.parse(path).getroot()  # raises on anything that is not well-formed XML
    assert root.tag.endswith("svg"), root.tag
    return [el.get("id") for el in root.iter() if (el.get("id") or "").startswith("srt-point-")]


class Report(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="srt-report-cli-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_tables_and_pictures(self):
        run = report(os.path.join(FIXTURES, "4101"), os.path.join(FIXTURES, "4102"),
                     "--out", self.tmp)
        self.assertEqual(run.returncode, 0, run.stderr)
        out = run.stdout
        for text in ("job 4101", "job 4102", "GPUs: 16 = 8 prefill + 8 decode (from plan.json)",
                     "GPUs: 24 = 16 prefill + 8 decode (from plan.json)", "MISSING", "FAILED",
                     "c128 MISSING: no result file", "c2048 FAILED: no request completed (0 of 4096)",
                     "6 point(s): 4 ok, 1 failed, 1 missing", "4 point(s): 3 ok, 1 failed, 0 missing"):
            self.assertIn(text, out)
        png = os.path.join(self.tmp, "throughput_vs_interactivity.png")
        svg = os.path.join(self.tmp, "throughput_vs_interactivity.svg")
        self.assertIn(png, run.stderr)
        check_png(self, png)
        ids = svg_point_ids(svg)
        self.assertEqual(len(ids), len(DRAWN), ids)  # one marker per drawn point, none twice
        self.assertEqual(set(ids), DRAWN)
        with open(svg, encoding="utf-8") as f:
            text = f.read()
        for label in ("c4", "c64 (failed)", "c1024", "Not drawn:", "c128 missing",
                      "c2048 failed", "(job 4101)", "(job 4102)"):
            self.assertIn(label, text)
        self.assertEqual([n for n in os.listdir(self.tmp) if n.endswith(".tmp")], [])

    def test_default_out_is_the_first_run_dir(self):
        run_dir = shutil.copytree(os.path.join(FIXTURES, "4102"), os.path.join(self.tmp, "4102"))
        os.remove(os.path.join(run_dir, "plan.json"))
        run = report(run_dir, "--gpus", "24", "--metric", "output")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("GPUs: 24 (from --gpus)", run.stdout)
        check_png(self, os.path.join(run_dir, "throughput_vs_interactivity.png"))
        self.assertEqual(len(svg_point_ids(os.path.join(run_dir, "throughput_vs_interactivity.svg"))), 3)

    def test_json(self):
        run = report(os.path.join(FIXTURES, "4101"), "--json", "--no-pictures")
        self.assertEqual(run.returncode, 0, run.stderr)
        runs = json.loads(run.stdout)
        states = {p["concurrency"]: p["state"] for p in runs[0]["points"]}
        self.assertEqual(states, {4: "ok", 8: "ok", 16: "ok", 32: "ok", 64: "failed", 128: "missing"})
        self.assertFalse(os.path.exists(os.path.join(FIXTURES, "4101", "throughput_vs_interactivity.png")))

    def test_malformed_result_names_the_file(self):
        run_dir = shutil.copytree(os.path.join(FIXTURES, "4101"), os.path.join(self.tmp, "4101"))
        bad = os.path.join(run_dir, "fixed-seq",
                           "dsv4-atom-mi355x-disagg-1p1d-tp8-isl8192-osl1024-c16.json")
        with open(bad, "w", encoding="utf-8") as f:
            f.write('{"completed": 160, "num_prompts": ')
        run = report(run_dir, "--no-pictures")
        self.assertEqual(run.returncode, 1)
        self.assertIn(bad, run.stderr)
        self.assertIn("not valid JSON", run.stderr)
        self.assertNotIn("terminate", run.stderr)

    def test_no_plan_no_gpus(self):
        run_dir = shutil.copytree(os.path.join(FIXTURES, "4102"), os.path.join(self.tmp, "4102"))
        os.remove(os.path.join(run_dir, "plan.json"))
        run = report(run_dir)
        self.assertEqual(run.returncode, 0, run.stderr)
        # The table anyway, per-GPU columns unknown; one note says why and what to pass.
        self.assertIn("GPUs: unknown (no plan.json", run.stdout)
        self.assertIn("4 point(s): 3 ok, 1 failed, 0 missing", run.stdout)
        rows = [l for l in run.stdout.splitlines() if l.lstrip().startswith("c256 ")]
        self.assertEqual(len(rows), 1, run.stdout)
        self.assertEqual(rows[0].split()[6:8], ["unknown", "unknown"], rows[0])
        # c2048 completed nothing: "-" (nothing measured), as with a known count.
        rows = [l for l in run.stdout.splitlines() if l.lstrip().startswith("c2048 FAILED ")]
        self.assertEqual(rows[0].split()[6:8], ["-", "-"], rows[0])
        notes = run.stderr.splitlines()
        self.assertEqual(len(notes), 1, run.stderr)
        self.assertIn("GPU count unknown", notes[0])
        self.assertIn("no picture is drawn", notes[0])
        self.assertIn("--gpus N", notes[0])
        self.assertFalse(os.path.exists(os.path.join(run_dir, "throughput_vs_interactivity.png")))
        # --json: the per-GPU figures are null, not 0.
        run = report(run_dir, "--json")
        self.assertEqual(run.returncode, 0, run.stderr)
        point = json.loads(run.stdout)[0]["points"][0]
        self.assertIsNone(point["tput_per_gpu"])
        self.assertGreater(point["total_token_throughput"], 0)

    def test_gpus_from_inferencex_names(self):
        # The launcher's renamed copies, alone in a directory: the count is in their names.
        src = os.path.join(FIXTURES, "4102", "fixed-seq")
        run_dir = os.path.join(self.tmp, "workspace")
        os.mkdir(run_dir)
        for name in os.listdir(src):
            conc = name.rsplit("-c", 1)[1][:-len(".json")]
            shutil.copy(os.path.join(src, name),
                        os.path.join(run_dir, f"dsv4_srt-4102_conc{conc}_gpus_24_ctx_16_gen_8.json"))
        run = report(run_dir)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("GPUs: 24 = 16 prefill + 8 decode (from result file names)", run.stdout)
        self.assertNotIn("unknown", run.stdout)
        self.assertNotIn("note:", run.stderr)
        check_png(self, os.path.join(run_dir, "throughput_vs_interactivity.png"))
        self.assertEqual(len(svg_point_ids(os.path.join(run_dir, "throughput_vs_interactivity.svg"))), 3)

    def test_plotter_failure_keeps_the_table(self):
        run = report(os.path.join(FIXTURES, "4101"), "--out", self.tmp, "--python",
                     os.path.join(self.tmp, "missing-python"))
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("6 point(s): 4 ok, 1 failed, 1 missing", run.stdout)
        self.assertIn("cannot run", run.stderr)


if __name__ == "__main__":
    HELPER, FIXTURES = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)

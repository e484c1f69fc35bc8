#!/usr/bin/python3
"""Stand-in for AMD's device-metrics-exporter (ROCm/device-metrics-exporter, image v1.5.2): the
``amd-metrics-exporter`` binary the image's entrypoint execs as /home/amd/bin/server, the lab's
GPU power exporter (srtctl's ``kind: custom`` GPU exporter, scraped on ``/metrics``).

What it follows (read in the real sources, nothing copied):
- cmd/exporter/main.go: Go ``flag`` command line (``-flag``, ``--flag``, ``-flag=value``): -bind
  (0.0.0.0), -amd-metrics-config (/etc/metrics/config.json), -log-file-path, -version, and the
  agent/scheduler switches, accepted and ignored here. There is no port flag: the port is 5000
  (globals.AMDListenPort), the config file's ``ServerPort``, or env METRICS_EXPORTER_PORT, in
  rising precedence (pkg/exporter/config/config.go). SIGINT/SIGTERM: "Received signal: ...,
  shutting down..." and exit 0. An unknown flag: "flag provided but not defined", exit 2.
- pkg/exporter/exporter.go: ``/metrics`` on a bare Prometheus registry (no go_/process_ series);
  any other path 404 "404 page not found"; a port already taken: "HTTP metrics server failed to
  start on H:P: ... Port may already be in use." and exit 1.
- pkg/amdgpu/gpuagent/gpuagent_gpu_metrics.go: the families ``gpu_power_usage`` (W),
  ``gpu_gfx_activity`` (%), ``gpu_junction_temperature`` (Celsius), gauges with their HELP texts,
  labelled with the mandatory label set (gpu_id, card_model, gpu_partition_id,
  gpu_compute_partition_type, gpu_memory_partition_type, deployment_mode, serial_number, pod,
  namespace, container, job_id, job_user, job_partition, hostname); ``gpu_nodes_total`` with
  {hostname}. client_golang's text output: families sorted by name, label names sorted, empty
  values written (``pod=""``). ``hostname`` is DS_NODE_NAME, else NODE_NAME, else the host name
  (pkg/exporter/utils/utils.go). CommonConfig.MetricsFieldPrefix in the config file prefixes names.

The stand-in's own parts:
- GPUs: ``--gpus N``; without it the AMD cards the (fake) sysfs shows, counted as ROCm SMI counts
  them (class/drm/cardN with device/vendor 0x1002 and device/vbios_version; SRT_STANDIN_SYSFS,
  default /sys, as tests/fixtures/rsmi/make-fake-sysfs.py builds them); with none there,
  SRT_STANDIN_GPU_COUNT (8, an MI355X node).
- serial_number: ``--serial-prefix`` + 12 hex digits of sha256(hostname/index): stable, unique
  per GPU and per host (the fake sysfs gives every node the same serials).
- Values: a deterministic function of (hostname, GPU, wall time): idle 150 W plus a load term
  that swings over a 60 s period with a per-GPU phase; gfx activity follows the load; junction
  temperature follows the power. Integers, as gpuagent reports them; never 0 W.
- Faults (environment, the lab's SRT_STANDIN_* convention):
  SRT_STANDIN_EXPORTER_DEAD_AFTER_SECONDS=S   exit 1 S seconds after serving began (as the real one
      does under -exit-on-agent-down when gpuagent goes away), logging the reason;
  SRT_STANDIN_EXPORTER_DROP_GPU=I[,J..]       those GPUs absent from every scrape (all their series,
      and gpu_nodes_total counts them out), as when gpuagent does not list a GPU;
  SRT_STANDIN_EXPORTER_START_DELAY_SECONDS=S  bind only after S seconds (the image's entrypoint sleeps
      10 s for gpuagent before it execs the exporter).
Logs go to stderr in logrus's text format (the real one writes them to /var/log/exporter.log).
"""

import argparse
import hashlib
import json
import math
import os
import re
import signal
import socket
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_PORT = 5000
DEFAULT_CONFIG = "/etc/metrics/config.json"
DEFAULT_SERIAL_PREFIX = "SRTX"
DEFAULT_CARD_MODEL = "AMD Instinct MI355X"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# The power model: watts = IDLE_W + LOAD_W * load, load in [0, 1] over LOAD_PERIOD_S.
IDLE_W = 150.0
LOAD_W = 550.0
LOAD_PERIOD_S = 60.0
AMBIENT_C = 30.0
C_PER_W = 0.05

# (family, HELP) as gpuagent_gpu_metrics.go declares them; gauges all.
GPU_FAMILIES = (
    ("gpu_gfx_activity", "Graphics engine usage in Percentage (0-100)"),
    ("gpu_junction_temperature", "Current junction/hotspot temperature in Celsius"),
    ("gpu_power_usage", "GPU Power usage in Watts"),
)
NODES_FAMILY = ("gpu_nodes_total", "Number of GPUs in the node")
PREFIX_PATTERN = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


# ---------------------------------------------------------------------------------------
# Logging: logrus TextFormatter (FullTimestamp, RFC3339), as pkg/exporter/logger sets it up
# ---------------------------------------------------------------------------------------

def _logfmt_value(text):
    if text and re.fullmatch(r"[A-Za-z0-9\-._/@^+]+", text):
        return text
    return json.dumps(text)


def log(msg, level="info", func="exporter.go"):
    stamp = datetime.now().astimezone().isoformat(timespec="seconds").replace("+00:00", "Z")
    sys.stderr.write(f"time=\"{stamp}\" level={level} msg={_logfmt_value(msg)} func={_logfmt_value(func)}\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------
# The node's GPUs and their readings
# ---------------------------------------------------------------------------------------

def node_hostname():
    """utils.GetHostName: DS_NODE_NAME, else NODE_NAME, else the kernel's host name."""
    return os.environ.get("DS_NODE_NAME") or os.environ.get("NODE_NAME") or socket.gethostname()


def sysfs_gpu_count(root):
    """AMD GPUs under ROOT/class/drm as ROCm SMI counts them: cardN whose device/vendor is 0x1002
    and which has device/vbios_version (connectors like card1-DP-1 and renderD* are no cards)."""
    drm = os.path.join(root, "class", "drm")
    try:
        names = os.listdir(drm)
    except OSError:
        return 0
    count = 0
    for name in names:
        if not re.fullmatch(r"card\d+", name):
            continue
        device = os.path.join(drm, name, "device")
        try:
            with open(os.path.join(device, "vendor")) as f:
                vendor = f.read().strip()
        except OSError:
            continue
        if vendor == "0x1002" and os.path.exists(os.path.join(device, "vbios_version")):
            count += 1
    return count


def gpu_count(explicit):
    if explicit is not None:
        return explicit
    found = sysfs_gpu_count(os.environ.get("SRT_STANDIN_SYSFS", "/sys"))
    if found:
        return found
    value = os.environ.get("SRT_STANDIN_GPU_COUNT", "").strip()
    return int(value) if value else 8


def serial_number(hostname, index, prefix=DEFAULT_SERIAL_PREFIX):
    digest = hashlib.sha256(f"{hostname}/{index}".encode()).hexdigest()[:12].upper()
    return f"{prefix}{digest}"


def reading(hostname, index, now):
    """(power W, gfx activity %, junction temperature C) of GPU `index` on `hostname` at unix
    time `now`: deterministic, integers, power in [IDLE_W, IDLE_W + LOAD_W]."""
    phase = int(hashlib.sha256(f"{hostname}/{index}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    load = 0.5 + 0.5 * math.sin(2 * math.pi * (now / LOAD_PERIOD_S + phase))
    power = round(IDLE_W + LOAD_W * load)
    return power, round(100 * load), round(AMBIENT_C + C_PER_W * power)


def _label_value(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(pairs):
    return "{" + ",".join(f'{name}="{_label_value(value)}"' for name, value in sorted(pairs.items())) + "}"


class Node:
    """What one scrape reports: the node's GPUs minus the dropped ones."""

    def __init__(self, hostname, gpus, serial_prefix, card_model, prefix, dropped=()):
        self.hostname = hostname
        self.gpus = gpus
        self.serial_prefix = serial_prefix
        self.card_model = card_model
        self.prefix = prefix
        self.dropped = set(dropped)

    def gpu_labels(self, index):
        return {
            "card_model": self.card_model, "container": "", "deployment_mode": "baremetal",
            "gpu_compute_partition_type": "spx", "gpu_id": str(index),
            "gpu_memory_partition_type": "nps1", "gpu_partition_id": "0", "hostname": self.hostname,
            "job_id": "", "job_partition": "", "job_user": "", "namespace": "", "pod": "",
            "serial_number": serial_number(self.hostname, index, self.serial_prefix),
        }

    def exposition(self, now):
        listed = [i for i in range(self.gpus) if i not in self.dropped]
        # client_golang orders a family's samples by their label values: gpu_id as a string.
        listed.sort(key=str)
        values = {i: reading(self.hostname, i, now) for i in listed}
        column = {"gpu_power_usage": 0, "gpu_gfx_activity": 1, "gpu_junction_temperature": 2}
        families = {}
        for name, help_text in GPU_FAMILIES:
            families[name] = (help_text, [(self.gpu_labels(i), values[i][column[name]]) for i in listed])
        families[NODES_FAMILY[0]] = (NODES_FAMILY[1], [({"hostname": self.hostname}, len(listed))])
        out = []
        for name in sorted(families):
            help_text, samples = families[name]
            if not samples:
                continue  # a vector with no children is not written at all
            full = self.prefix + name
            out.append(f"# HELP {full} {help_text}\n# TYPE {full} gauge\n")
            out.extend(f"{full}{_labels(labels)} {value}\n" for labels, value in samples)
        return "".join(out)


# ---------------------------------------------------------------------------------------
# Command line (Go flag style) and configuration
# ---------------------------------------------------------------------------------------

def _go_bool(text):
    if text.lower() in ("1", "t", "true"):
        return True
    if text.lower() in ("0", "f", "false"):
        return False
    raise argparse.ArgumentTypeError(f"parse error: {text!r}")


class _GoFlagParser(argparse.ArgumentParser):
    def error(self, message):
        match = re.match(r"unrecognized arguments: (\S+)", message)
        text = f"flag provided but not defined: {match.group(1)}" if match else message
        self.print_usage(sys.stderr)
        sys.stderr.write(text + "\n")
        sys.exit(2)


def parse_command_line(argv):
    ap = _GoFlagParser(prog="amd-metrics-exporter", allow_abbrev=False,
                       description="Stand-in for AMD device-metrics-exporter (lab, fake GPUs).")

    def flag(name, **kw):
        ap.add_argument("-" + name, "--" + name, **kw)

    def bool_flag(name, default):
        flag(name, nargs="?", const=True, default=default, type=_go_bool, metavar="BOOL")

    flag("amd-metrics-config", default=DEFAULT_CONFIG, help="AMD metrics exporter config file")
    flag("agent-grpc-port", type=int, default=0, help="Agent GRPC port if socket option is not used (ignored)")
    ap.add_argument("-s", default="/var/run/gpuagent.sock", help="Socket path for gpuagent connection (ignored)")
    bool_flag("version", False)
    bool_flag("monitor-nic", False)
    bool_flag("monitor-gpu", True)
    bool_flag("monitor-ifoe", False)
    bool_flag("enable-k8s", True)
    bool_flag("enable-k8s-scl", True)
    bool_flag("enable-cri", True)
    bool_flag("enable-slurm-scl", True)
    bool_flag("sriov-enable", False)
    bool_flag("exit-on-agent-down", False)
    bool_flag("exit-on-rocpctl-error", False)
    ap.add_argument("-bind", "--bind", "--host", dest="bind", default="0.0.0.0",
                    help="bind address for metrics server (--host: stand-in alias)")
    flag("log-file-path", default="/var/log/exporter.log", help="log file path (stand-in: logs go to stderr)")
    # Stand-in only.
    ap.add_argument("--port", type=int, default=None,
                    help=f"stand-in: listen port, over METRICS_EXPORTER_PORT and ServerPort (else {DEFAULT_PORT})")
    ap.add_argument("--gpus", type=int, default=None,
                    help="stand-in: GPUs on this node (default: the sysfs's AMD cards, else SRT_STANDIN_GPU_COUNT or 8)")
    ap.add_argument("--serial-prefix", default=DEFAULT_SERIAL_PREFIX, help="stand-in: serial_number prefix")
    ap.add_argument("--card-model", default=DEFAULT_CARD_MODEL, help="stand-in: card_model label")
    args = ap.parse_args(argv)
    if args.gpus is not None and args.gpus < 0:
        ap.error("--gpus must be >= 0")
    return args


def read_config(path):
    """The config file's ServerPort and MetricsFieldPrefix; (None, "") when absent or unreadable."""
    try:
        with open(path) as f:
            config = json.load(f)
    except (OSError, ValueError):
        return None, ""
    if not isinstance(config, dict):
        return None, ""
    port = config.get("ServerPort") or None
    common = config.get("CommonConfig") or {}
    prefix = common.get("MetricsFieldPrefix", "") if isinstance(common, dict) else ""
    if prefix and not PREFIX_PATTERN.match(prefix):
        log(f"invalid prefix configured {prefix}", func="metrics.go")
        prefix = ""
    return (int(port) if port else None), prefix


def resolve_port(explicit, config_port):
    if explicit is not None:
        return explicit
    env = os.environ.get("METRICS_EXPORTER_PORT", "")
    if env:
        log("METRICS_EXPORTER_PORT env set, override serport", func="config.go")
        try:
            return int(env)
        except ValueError:
            pass
    return config_port or DEFAULT_PORT


def faults_from_env():
    dead_after = os.environ.get("SRT_STANDIN_EXPORTER_DEAD_AFTER_SECONDS", "").strip()
    dropped = os.environ.get("SRT_STANDIN_EXPORTER_DROP_GPU", "").strip()
    delay = os.environ.get("SRT_STANDIN_EXPORTER_START_DELAY_SECONDS", "").strip()
    return (float(dead_after) if dead_after else None,
            {int(x) for x in dropped.split(",") if x.strip()},
            float(delay) if delay else 0.0)


# ---------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    server_version = ""
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def _send(self, status, body, content_type):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _route(self):
        # gorilla mux matches the path exactly; /metrics takes any method.
        if self.path.split("?", 1)[0] == "/metrics":
            self._send(200, self.server.node.exposition(time.time()), CONTENT_TYPE)
        else:
            self._send(404, "404 page not found\n", "text/plain; charset=utf-8")

    do_GET = do_POST = do_HEAD = _route

    def send_response(self, code, message=None):
        # No Server: header, as Go's net/http sends none.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    def log_message(self, fmt, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main(argv=None):
    args = parse_command_line(sys.argv[1:] if argv is None else argv)
    version = os.environ.get("SRT_STANDIN_GPU_EXPORTER_VERSION", "v1.5.2")
    if args.version:
        print(f"Version : {version}\nBuildDate: stand-in\nGitCommit: stand-in\n"
              f"Deployment: container deployment (not k8s)")
        return 0
    dead_after, dropped, delay = faults_from_env()

    stop = threading.Event()
    received = []

    def on_signal(signum, _frame):
        received.append(signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    log(f"Version : {version}", func="main.go")
    log("Deployment: container deployment (not k8s)", func="main.go")
    log(f"Using socket connection: {args.s}", func="main.go")
    if delay > 0 and stop.wait(delay):
        return _shutdown(received, None)

    config_port, prefix = read_config(args.amd_metrics_config)
    port = resolve_port(args.port, config_port)
    hostname = node_hostname()
    gpus = gpu_count(args.gpus)
    log(f"hostame {hostname}", func="gpuagent_gpu.go")
    log(f"stand-in: {gpus} GPUs, serial_number {serial_number(hostname, 0, args.serial_prefix)}.. "
        f"(dropped: {sorted(dropped) or 'none'})", func="gpu_exporter.py")
    log(f"starting server on {args.bind}:{port}")
    try:
        server = Server((args.bind, port), Handler)
    except OSError as exc:
        log(f"FATAL \"HTTPServerFailed\" (no service): HTTP metrics server failed to start on "
            f"{args.bind}:{port}: listen tcp {args.bind}:{port}: bind: {exc.strerror.lower()}. "
            f"Port may already be in use.", func="events.go")
        return 1
    server.node = Node(hostname, gpus, args.serial_prefix, args.card_model, prefix, dropped)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    log(f"serving requests on {args.bind}:{port}")

    if dead_after is not None:
        if not stop.wait(dead_after):
            log("FATAL \"AgentUnreachable\" (no service): gpuagent unreachable after 3 consecutive failures "
                "(last error: stand-in SRT_STANDIN_EXPORTER_DEAD_AFTER_SECONDS); pod will exit. "
                "Restart pod or check gpuagent health.", func="events.go")
            server.server_close()
            return 1
    else:
        while not stop.wait(3600):
            pass
    return _shutdown(received, server)


def _shutdown(received, server):
    name = {signal.SIGTERM: "terminated", signal.SIGINT: "interrupt"}.get(received[0] if received else None, "?")
    log(f"Received signal: {name}, shutting down...", func="main.go")
    if server is not None:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Stand-in for ``vllm serve MODEL ...`` (vLLM V1 OpenAI server), run as tests/standins/bin/vllm.

Facts followed (../shared/reference/engines-sglang-vllm.md; no vLLM code is copied):
- §0.1/§4.2: one ``vllm serve`` process per worker per node owns every local rank as children:
  one EngineCore per DP rank (TP/PP ranks live inside it here, see Deviations), plus a
  DPCoordinator when DP > 1. Children are started with the spawn method.
- §0.13/§4.2: process names ``VLLM::APIServer`` (this process), ``VLLM::EngineCore_DP<r>`` (or
  ``VLLM::EngineCore`` without DP), ``VLLM::DPCoordinator``; set with prctl(PR_SET_NAME) through
  ctypes (python3-setproctitle is not installed), so /proc/PID/comm carries them, truncated by
  the kernel to 15 bytes ("VLLM::EngineCor"), as setproctitle leaves comm too; the command line
  stays ``vllm serve ...`` (what scripts match at argv[0]).
- §0.4/§4.2: GPUs are chosen with ``--device-ids`` (sorted local indices, srt-spank passes them),
  values being physical indices, or indices into the visible-devices variables when set
  (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES, then CUDA_VISIBLE_DEVICES, each indexing the
  set the previous one left). A value outside the visible set, a repeated value, or a count
  other than the local world size (TP x PP x PCP x local DP) is an error (exit 1). Without
  ``--device-ids`` the first ranks' worth of visible devices are taken. The stand-in logs which
  GPUs each EngineCore took. Physical GPUs: SRT_STANDIN_GPU_COUNT (8, an MI355X node).
- §4.2/§4.3, srt-spank's core/plan/vllm.cpp: ``VLLM_PORT`` is the base of vLLM's get_open_port()
  scan (bind-test from VLLM_PORT upwards; unset: a kernel-chosen port). What listens on TCP:
    * the API port ``--host``:``--port`` (host None = all addresses). As vLLM's setup_server the
      socket is created and bound (SO_REUSEADDR + SO_REUSEPORT) before the engine starts and only
      listens once every EngineCore is ready, so /health answering means the engine is up;
    * DP = 1: the EngineCore's torch world-group store, on the first free scan port;
    * DP > 1 on one node: the API server takes five DP master ports from the scan
      (ParallelConfig's list); every EngineCore pops the same two from its copy (the DP group's
      rendezvous, then the world group's), and DP rank 0 owns both stores (0.0.0.0; torch's
      TCPStore server listens on every address). The front-end <-> engine <-> coordinator ZMQ
      sockets of a single-node DP worker are ipc:// (local only), so nothing else is TCP; here
      they are multiprocessing pipes. ``--data-parallel-rpc-port`` is only used for a
      multi-node handshake, which the stand-in does not model.
- §6 / core/plan/vllm.cpp progress_metric(): ``/metrics`` on the API port with ``vllm:`` names,
  prometheus_client style, labelled model_name and engine (the DP rank):
  ``vllm:request_success_total{finished_reason}`` (what srt-spank's stall watch sums),
  ``vllm:num_requests_running``, ``vllm:num_requests_waiting``, ``vllm:prompt_tokens_total``,
  ``vllm:generation_tokens_total``; live values (no snapshot).
- /health (200, empty body, once ready), /v1/models (every --served-model-name, default the
  model), /version, /v1/completions and /v1/chat/completions, streamed (SSE, usage chunk only with
  stream_options.include_usage, then [DONE]) or not; a request naming another model is a 404.
- DP routing: the ``X-data-parallel-rank`` request header pins a rank (what vLLM's OpenAI server
  reads and what vllm-router sends for --intra-node-data-parallel-size expansions); an index
  outside [0, dp) is a 400. Otherwise the least loaded rank (waiting x 4 + running, as vLLM's DP
  load balancer scores engines).
- A dead EngineCore (or DPCoordinator) ends the server with exit status 1; SIGTERM/SIGINT stop it
  with exit status 0 after ending the children; an EngineCore whose server disappears exits.
- ``--enable-auto-tool-choice`` without ``--tool-call-parser`` fails (TypeError, exit 1) as
  validate_parsed_serve_args does (§2.2).

Timing: timing_model.py, as the ATOM stand-in uses it (per rank prefill queue and decode batch).

Stand-in knobs (environment): SRT_STANDIN_VLLM_VERSION (0.11.2), SRT_STANDIN_LOAD_SECONDS (0),
the timing model's (SRT_STANDIN_TOKEN_MS, _SEQ_US, _PREFILL_MS, _PREFILL_US_PER_TOKEN),
SRT_STANDIN_EOS_AFTER, SRT_STANDIN_GPU_COUNT (8), SRT_STANDIN_HANG_AFTER_REQUESTS(+_MARKER) and
SRT_STANDIN_CRASH_AFTER_REQUESTS(+_MARKER) with the ATOM stand-in's meaning (the crash kills
EngineCore DP rank 0).

Deviations: no per-TP-rank Worker processes (VLLM::Worker) and no torch/NCCL/gloo ports of
their own (the real ones are kernel-chosen); multi-node (--nnodes > 1, --headless,
--data-parallel-size-local < --data-parallel-size, --data-parallel-rank, external LB) is refused
with exit 1 ("not modelled"); --api-server-count > 1 runs one API server; no uvicorn access log;
tokens are words; max_model_len defaults to 8192 when --max-model-len is not given; --config
YAML and dotted JSON keys are not read.
"""

import asyncio
import ctypes
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import time
import traceback
import uuid

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from aiohttp import web  # noqa: E402

import vllm_cli  # noqa: E402
from standin_common import (SSE_DONE, bind_listener, env_float, env_int,  # noqa: E402
                            raise_nofile_limit, run_serving, setup_logging, sse_frame, start_sse)
from timing_model import Queue, TimingModel  # noqa: E402

log = setup_logging("vllm")

DEFAULT_MAX_MODEL_LEN = 8192  # stand-in: the real one derives it from the model's config
DP_MASTER_PORT_COUNT = 5      # ParallelConfig takes five ports for DP process groups
VISIBILITY_VARS = ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")


def standin_version():
    return os.environ.get("SRT_STANDIN_VLLM_VERSION", "0.11.2")


def set_process_name(name):
    """prctl(PR_SET_NAME): /proc/self/comm (15 bytes), what ps -o comm / pgrep show."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)  # PR_SET_NAME = 15
    except (OSError, AttributeError):
        pass


class ConfigError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# GPUs and ports
# ---------------------------------------------------------------------------------------

def visible_devices(env, physical_count):
    """The physical GPUs a process may use: ROCR, then HIP, then CUDA visibility, each
    indexing the devices the previous one left (the ROCm runtime's layering)."""
    devices = list(range(physical_count))
    for var in VISIBILITY_VARS:
        raw = env.get(var)
        if raw is None:
            continue
        picked = []
        for item in [x for x in raw.split(",") if x.strip()]:
            try:
                index = int(item)
            except ValueError:
                raise ConfigError(f"{var}={raw!r}: {item!r} is not a device index")
            if not 0 <= index < len(devices):
                raise ConfigError(f"{var}={raw!r}: device {index} is not visible "
                                  f"({len(devices)} device(s) left by the variables before it)")
            picked.append(devices[index])
        devices = picked
    return devices


def select_devices(device_ids, world_local, env):
    """[(index, physical GPU)] for the worker's local ranks in rank order."""
    visible = visible_devices(env, env_int("SRT_STANDIN_GPU_COUNT", 8))
    if device_ids is None:
        if len(visible) < world_local:
            raise ConfigError(f"{world_local} GPU(s) needed (local world size), {len(visible)} visible")
        return [(i, visible[i]) for i in range(world_local)]
    ids = []
    for item in device_ids.split(","):
        item = item.strip()
        try:
            ids.append(int(item))
        except ValueError:
            raise ConfigError(f"--device-ids {device_ids!r}: {item!r} is not a device index "
                              "(the stand-in models no GPU UUIDs)")
    if len(set(ids)) != len(ids):
        raise ConfigError(f"--device-ids {device_ids!r} names a device twice")
    for index in ids:
        if not 0 <= index < len(visible):
            raise ConfigError(f"--device-ids {device_ids!r}: device {index} is not visible "
                              f"(visible: {len(visible)} device(s))")
    if len(ids) != world_local:
        raise ConfigError(f"--device-ids {device_ids!r} lists {len(ids)} device(s), the local "
                          f"world size (TP x PP x PCP x local DP) is {world_local}")
    return [(i, visible[i]) for i in ids]


def get_open_port(skip=()):
    """vLLM's get_open_port(): with VLLM_PORT, the first port from there up that binds (a
    bind test, released at once); without, a kernel-chosen one. `skip`: ports already handed
    out by this process (so a list of several is distinct)."""
    base = os.environ.get("VLLM_PORT", "").strip()
    if not base:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("", 0))
            return s.getsockname()[1]
    port = int(base)
    while port < 65536:
        if port not in skip:
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("", port))
                    return port
            except OSError:
                log.info("Port %d is already in use, trying port %d", port, port + 1)
        port += 1
    raise OSError("no free port at or above VLLM_PORT")


def create_server_socket(host, port):
    """setup_server: bound (not yet listening) before the engine is built."""
    family = socket.AF_INET6 if host and ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host or "", port))
    except OSError:
        sock.close()
        raise
    return sock


# ---------------------------------------------------------------------------------------
# Children: EngineCore per DP rank, DPCoordinator
# ---------------------------------------------------------------------------------------

def _exit_if_orphaned(parent_pid, clog):
    if os.getppid() != parent_pid:
        clog.error("API server process went away; exiting")
        os._exit(1)


def engine_core_main(spec, ready_conn):
    """One EngineCore (multiprocessing target). Exit codes: 1 = failed (traceback logged)."""
    dp_rank, dp_size = spec["dp_rank"], spec["dp_size"]
    title = f"EngineCore_DP{dp_rank}" if dp_size > 1 else "EngineCore"
    set_process_name("VLLM::" + title)
    clog = setup_logging(f"vllm.{title}")
    parent = os.getppid()
    held = []
    try:
        clog.info("%s pid=%d: GPUs %s (indices %s), TP=%d PP=%d", title, os.getpid(),
                  [g for _, g in spec["gpus"]], [i for i, _ in spec["gpus"]], spec["tp"], spec["pp"])
        if dp_size > 1:
            ports = list(spec["dp_master_ports"])
            dp_group_port, world_port = ports.pop(), ports.pop()
            if dp_rank == 0:
                held.append(bind_listener("0.0.0.0", dp_group_port))
                clog.info("DP group rendezvous store on %s:%d", spec["dp_master_ip"], dp_group_port)
                held.append(bind_listener("0.0.0.0", world_port))
                clog.info("world group (tp=%d, dp=%d) store on %s:%d", spec["tp"], dp_size,
                          spec["dp_master_ip"], world_port)
        else:
            world_port = get_open_port()
            held.append(bind_listener("0.0.0.0", world_port))
            clog.info("world group (tp=%d) init tcp://127.0.0.1:%d", spec["tp"], world_port)
        seconds = spec["load_seconds"]
        clog.info("Loading model %s (simulated %.1fs)", spec["model"], seconds)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            _exit_if_orphaned(parent, clog)
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
    except Exception as exc:  # noqa: BLE001 - any startup failure kills the engine
        clog.error("EngineCore failed to start: %s: %s\n%s", type(exc).__name__, exc,
                   traceback.format_exc())
        sys.stderr.flush()
        os._exit(1)
    ready_conn.send(("ready", dp_rank))
    ready_conn.close()
    clog.info("%s ready", title)
    while True:
        _exit_if_orphaned(parent, clog)
        time.sleep(0.2)


def coordinator_main():
    set_process_name("VLLM::DPCoordinator")
    clog = setup_logging("vllm.DPCoordinator")
    parent = os.getppid()
    clog.info("DP Coordinator pid=%d (ipc:// sockets only)", os.getpid())
    while True:
        _exit_if_orphaned(parent, clog)
        time.sleep(0.2)


class Rank:
    def __init__(self, dp_rank, process, ready):
        self.dp_rank = dp_rank
        self.process = process
        self.ready = ready
        self.waiting = 0              # admitted, prefill not done
        self.running = 0              # decoding
        self.prefill_queue = Queue()  # timing_model: one prefill at a time per rank
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.success = {"stop": 0, "length": 0, "abort": 0}

    def score(self):
        return self.waiting * 4 + self.running


class Engine:
    def __init__(self, args, model, gpus):
        self.args = args
        self.model = model
        self.gpus = gpus
        self.dp = args.data_parallel_size
        self.replica = args.tensor_parallel_size * args.pipeline_parallel_size * \
            args.prefill_context_parallel_size
        self.ranks = []
        self.coordinator = None
        self._rotate = 0

    def start(self):
        ctx = multiprocessing.get_context("spawn")
        dp_ports = []
        if self.dp > 1:
            for _ in range(DP_MASTER_PORT_COUNT):
                dp_ports.append(get_open_port(skip=dp_ports))
            log.info("DP master ports (from the VLLM_PORT scan): %s", dp_ports)
            self.coordinator = ctx.Process(target=coordinator_main, name="DPCoordinator")
            self.coordinator.start()
            log.info("Started DP Coordinator process (PID: %d)", self.coordinator.pid)
        for r in range(self.dp):
            spec = {"model": self.model, "dp_rank": r, "dp_size": self.dp,
                    "tp": self.args.tensor_parallel_size, "pp": self.args.pipeline_parallel_size,
                    "gpus": self.gpus[r * self.replica:(r + 1) * self.replica],
                    "dp_master_ports": dp_ports,
                    "dp_master_ip": self.args.data_parallel_address or "127.0.0.1",
                    "load_seconds": env_float("SRT_STANDIN_LOAD_SECONDS", 0.0)}
            ready_recv, ready_send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=engine_core_main, args=(spec, ready_send),
                               name=f"EngineCore_DP{r}")
            proc.start()
            ready_send.close()
            self.ranks.append(Rank(r, proc, ready_recv))

    def wait_ready(self):
        """None when every EngineCore is ready, else the dead child's description."""
        pending = {r.ready: r for r in self.ranks}
        while pending:
            waitables = list(pending) + [r.process.sentinel for r in pending.values()]
            for obj in multiprocessing.connection.wait(waitables, timeout=0.5):
                if obj in pending:
                    try:
                        obj.recv()
                        del pending[obj]
                        continue
                    except EOFError:
                        pass
            dead = self.dead_child()
            if dead is not None:
                return dead
        log.info("%d EngineCore(s) ready", len(self.ranks))
        return None

    def dead_child(self):
        for rank in self.ranks:
            if rank.process.exitcode is not None:
                return f"EngineCore_DP{rank.dp_rank} (pid {rank.process.pid}) exit code {rank.process.exitcode}"
        if self.coordinator is not None and self.coordinator.exitcode is not None:
            return f"DPCoordinator (pid {self.coordinator.pid}) exit code {self.coordinator.exitcode}"
        return None

    def stop(self, grace=3.0):
        procs = [r.process for r in self.ranks] + ([self.coordinator] if self.coordinator else [])
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        deadline = time.monotonic() + grace
        for proc in procs:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)

    def pick(self):
        """Least score (waiting x 4 + running); ties go round the ranks."""
        n = len(self.ranks)
        self._rotate = (self._rotate + 1) % n
        order = self.ranks[self._rotate:] + self.ranks[:self._rotate]
        return min(order, key=Rank.score)


# ---------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------

class RequestError(Exception):
    def __init__(self, status, message, err_type):
        super().__init__(message)
        self.status, self.message, self.err_type = status, message, err_type


def error_response(status, message, err_type="BadRequestError"):
    return web.json_response({"error": {"message": message, "type": err_type, "param": None,
                                        "code": status}}, status=status)


class Server:
    def __init__(self, args, engine, model, served_names, max_model_len):
        self.args = args
        self.engine = engine
        self.model = model
        self.served_names = served_names
        self.max_model_len = max_model_len
        self.timing = TimingModel(protocol="tcp")
        self.eos_after = env_int("SRT_STANDIN_EOS_AFTER", 0)
        self.requests_total = 0
        self.hang_after = env_int("SRT_STANDIN_HANG_AFTER_REQUESTS", 0)
        self.hang_marker = os.environ.get("SRT_STANDIN_HANG_MARKER", "")
        self.hanging = False
        self.crash_after = env_int("SRT_STANDIN_CRASH_AFTER_REQUESTS", 0)
        self.crash_marker = os.environ.get("SRT_STANDIN_CRASH_MARKER", "")
        self.crashed = False

    def app(self):
        app = web.Application(client_max_size=512 * 1024 * 1024)
        r = app.router
        r.add_get("/health", self.health)
        r.add_get("/ping", self.health)
        r.add_get("/version", self.version)
        r.add_get("/v1/models", self.models)
        r.add_get("/metrics", self.metrics)
        r.add_post("/v1/completions", self.completions)
        r.add_post("/v1/chat/completions", self.chat_completions)
        return app

    async def health(self, _request):
        return web.Response(status=200)

    async def version(self, _request):
        return web.json_response({"version": standin_version()})

    async def models(self, _request):
        created = int(time.time())
        return web.json_response({"object": "list", "data": [{
            "id": name, "object": "model", "created": created, "owned_by": "vllm",
            "root": self.model, "parent": None, "max_model_len": self.max_model_len,
            "permission": []} for name in self.served_names]})

    async def metrics(self, _request):
        model = self.served_names[0].replace("\\", "\\\\").replace('"', '\\"')
        ranks = self.engine.ranks
        out = []

        def family(name, kind, help_text, samples):
            out.append(f"# HELP {name} {help_text}")
            out.append(f"# TYPE {name} {kind}")
            for labels, value in samples:
                body = ",".join(f'{k}="{v}"' for k, v in labels)
                out.append(f"{name}{{{body}}} {float(value)}")

        def base(rank):
            return [("engine", str(rank.dp_rank)), ("model_name", model)]

        family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
               [(base(r), r.running) for r in ranks])
        family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
               [(base(r), r.waiting) for r in ranks])
        family("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
               [(base(r), r.prompt_tokens) for r in ranks])
        family("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
               [(base(r), r.generation_tokens) for r in ranks])
        family("vllm:request_success_total", "counter", "Count of successfully processed requests.",
               [([("engine", str(r.dp_rank)), ("finished_reason", reason), ("model_name", model)], n)
                for r in ranks for reason, n in r.success.items()])
        return web.Response(text="\n".join(out) + "\n", content_type="text/plain",
                            charset="utf-8")

    # -- faults (lab knobs, as the ATOM stand-in) ------------------------------------------
    def crash_if_due(self):
        if not self.crash_after or self.crashed or self.requests_total <= self.crash_after:
            return
        if self.crash_marker:
            try:
                with open(self.crash_marker, "x"):
                    pass
            except FileExistsError:
                return
        self.crashed = True
        log.error("stand-in: EngineCore_DP0 crashes after %d requests (SRT_STANDIN_CRASH_AFTER_REQUESTS)",
                  self.crash_after)
        os.kill(self.engine.ranks[0].process.pid, signal.SIGKILL)

    async def hang_if_wedged(self):
        if not self.hang_after or self.requests_total <= self.hang_after:
            return
        if not self.hanging:
            if self.hang_marker:
                if os.path.exists(self.hang_marker):
                    return
                with open(self.hang_marker, "x"):
                    pass
            self.hanging = True
            log.warning("stand-in: wedged after %d requests (SRT_STANDIN_HANG_AFTER_REQUESTS)",
                        self.hang_after)
        await asyncio.Event().wait()

    # -- requests --------------------------------------------------------------------------
    async def read_body(self, request):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RequestError(400, "Invalid JSON body", "BadRequestError")
        if not isinstance(body, dict):
            raise RequestError(400, "The request body must be a JSON object", "BadRequestError")
        model = body.get("model")
        if model is not None and model not in self.served_names:
            raise RequestError(404, f"The model `{model}` does not exist.", "NotFoundError")
        return body

    def pick_rank(self, request):
        header = request.headers.get("X-data-parallel-rank")
        if header is None:
            return self.engine.pick()
        try:
            rank = int(header)
        except ValueError:
            raise RequestError(400, f"X-data-parallel-rank {header!r} is not an integer",
                               "BadRequestError")
        if not 0 <= rank < len(self.engine.ranks):
            raise RequestError(400, f"data_parallel_rank {rank} is out of range "
                                    f"[0, {len(self.engine.ranks)}).", "BadRequestError")
        return self.engine.ranks[rank]

    def budget(self, body, prompt_tokens, default):
        limit = body.get("max_completion_tokens")
        if limit is None:
            limit = body.get("max_tokens")
        if limit is None:
            limit = default if default is not None else self.max_model_len - prompt_tokens
        try:
            limit = int(limit)
        except (TypeError, ValueError):
            raise RequestError(400, "max_tokens must be an integer", "BadRequestError")
        if limit < 0 or prompt_tokens + limit > self.max_model_len:
            raise RequestError(400, (
                f"This model's maximum context length is {self.max_model_len} tokens. However, "
                f"you requested {prompt_tokens + limit} tokens ({prompt_tokens} in the messages, "
                f"{limit} in the completion). Please reduce the length of the messages or "
                "completion."), "BadRequestError")
        if self.eos_after and not body.get("ignore_eos") and self.eos_after < limit:
            return self.eos_after, "stop"
        return limit, "length"

    async def completions(self, request):
        try:
            body = await self.read_body(request)
            prompt = body.get("prompt")
            if isinstance(prompt, list):
                prompt = " ".join(str(p) for p in prompt)
            if not isinstance(prompt, str):
                raise RequestError(400, "prompt must be a string or a list", "BadRequestError")
            return await self.generate(request, body, prompt, chat=False)
        except RequestError as exc:
            return error_response(exc.status, exc.message, exc.err_type)

    async def chat_completions(self, request):
        try:
            body = await self.read_body(request)
            messages = body.get("messages")
            if not isinstance(messages, list):
                raise RequestError(400, "messages must be a list", "BadRequestError")
            prompt = " ".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
            return await self.generate(request, body, prompt, chat=True)
        except RequestError as exc:
            return error_response(exc.status, exc.message, exc.err_type)

    async def generate(self, request, body, prompt, chat):
        prompt_tokens = len(prompt.split())
        n_tokens, finish = self.budget(body, prompt_tokens, None if chat else 16)
        rank = self.pick_rank(request)
        name = body.get("model") or self.served_names[0]
        request_id = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
        self.requests_total += 1
        self.crash_if_due()
        await self.hang_if_wedged()
        rank.waiting += 1
        rank.prompt_tokens += prompt_tokens
        admitted = True
        try:
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                response = await start_sse(request)
                await self.timing.prefill(rank.prefill_queue, prompt_tokens)
                rank.waiting -= 1
                admitted = False
                rank.running += 1
                try:
                    await self.stream(response, request_id, name, chat, rank, prompt_tokens,
                                      n_tokens, finish, include_usage)
                finally:
                    rank.running -= 1
                rank.success[finish] += 1
                return response
            await self.timing.prefill(rank.prefill_queue, prompt_tokens)
            rank.waiting -= 1
            admitted = False
            rank.running += 1
            try:
                for _ in range(max(0, n_tokens - 1)):
                    await self.timing.decode_step(rank.running)
            finally:
                rank.running -= 1
            rank.generation_tokens += n_tokens
            rank.success[finish] += 1
            return web.json_response(self.full_body(request_id, name, chat, prompt_tokens,
                                                    n_tokens, finish))
        except (asyncio.CancelledError, ConnectionResetError):
            rank.success["abort"] += 1
            raise
        finally:
            if admitted:
                rank.waiting -= 1

    def full_body(self, request_id, name, chat, prompt_tokens, n_tokens, finish):
        text = " tok" * n_tokens
        if chat:
            choice = {"index": 0, "message": {"role": "assistant", "content": text,
                                              "reasoning_content": None, "tool_calls": []},
                      "logprobs": None, "finish_reason": finish, "stop_reason": None}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                      "stop_reason": None, "prompt_logprobs": None}
        return {"id": request_id, "object": "chat.completion" if chat else "text_completion",
                "created": int(time.time()), "model": name, "choices": [choice],
                "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens + n_tokens,
                          "completion_tokens": n_tokens, "prompt_tokens_details": None}}

    async def stream(self, response, request_id, name, chat, rank, prompt_tokens, n_tokens,
                     finish, include_usage):
        created = int(time.time())
        obj = "chat.completion.chunk" if chat else "text_completion"

        def chunk(text, reason, first=False):
            if chat:
                delta = {"role": "assistant", "content": text} if first else {"content": text}
                choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}
            else:
                choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": reason,
                          "stop_reason": None}
            return sse_frame({"id": request_id, "object": obj, "created": created, "model": name,
                              "choices": [choice]})

        if chat:  # the role chunk comes first
            await response.write(chunk("", None, first=True))
        for i in range(n_tokens):
            if i:
                await self.timing.decode_step(rank.running)
            rank.generation_tokens += 1
            last = i == n_tokens - 1
            data = chunk(" tok", finish if last else None)
            if last:
                if include_usage:
                    data += sse_frame({"id": request_id, "object": obj, "created": created,
                                       "model": name, "choices": [], "usage": {
                                           "prompt_tokens": prompt_tokens,
                                           "total_tokens": prompt_tokens + n_tokens,
                                           "completion_tokens": n_tokens}})
                data += SSE_DONE
            await response.write(data)
        if n_tokens == 0:
            await response.write(SSE_DONE)
        await response.write_eof()


# ---------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------

async def serve(server, sock, host, port):
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    runner = web.AppRunner(server.app(), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.SockSite(runner, sock, backlog=4096)
    await site.start()
    log.info("Starting vLLM API server 0 on http://%s:%d", host or "0.0.0.0", port)
    log.info("Uvicorn running on socket ('%s', %d) (Press CTRL+C to quit)", host or "0.0.0.0", port)
    log.info("Application startup complete.")
    failed = None
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), 0.25)
        except asyncio.TimeoutError:
            pass
        failed = server.engine.dead_child()
        if failed is not None:
            # A group-wide SIGTERM may reach a child first: that is a shutdown, not a failure.
            try:
                await asyncio.wait_for(stop.wait(), 0.3)
            except asyncio.TimeoutError:
                pass
            if stop.is_set():
                failed = None
                break
            log.error("Engine core proc %s died unexpectedly, shutting down.", failed)
            break
    log.info("Shutting down")
    await runner.cleanup()
    return 1 if failed is not None else 0


def check_supported(args):
    """Layouts the stand-in does not model: a clear refusal instead of a wrong imitation."""
    dp = args.data_parallel_size
    local = args.data_parallel_size_local if args.data_parallel_size_local is not None else dp
    if args.headless or args.nnodes > 1 or local != dp or args.data_parallel_rank is not None \
            or args.data_parallel_external_lb or (args.data_parallel_start_rank or 0) != 0:
        raise ConfigError("multi-node / external-LB layouts (--headless, --nnodes, "
                          "--data-parallel-size-local < --data-parallel-size, --data-parallel-rank, "
                          "--data-parallel-start-rank, --data-parallel-external-lb) are not "
                          "modelled by the vLLM stand-in")
    for name in ("data_parallel_size", "tensor_parallel_size", "pipeline_parallel_size",
                 "prefill_context_parallel_size"):
        if getattr(args, name) < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1")


def main(argv=None):
    args = vllm_cli.parse_args(argv)
    model = args.model_tag or args.model or vllm_cli.DEFAULT_MODEL
    set_process_name("VLLM::APIServer")
    raise_nofile_limit()
    log.info("vLLM API server version %s", standin_version())
    defaults = vars(vllm_cli.build_parser().parse_args([]))
    log.info("non-default args: %s", {k: v for k, v in vars(args).items() if defaults.get(k) != v})
    if args.enable_auto_tool_choice and not args.tool_call_parser:
        raise TypeError("Error: --enable-auto-tool-choice requires --tool-call-parser")
    try:
        check_supported(args)
        max_model_len = vllm_cli.human_readable_int(args.max_model_len, allow_auto=True)
        if max_model_len in (None, -1):
            max_model_len = DEFAULT_MAX_MODEL_LEN
        vllm_cli.human_readable_int(args.max_num_batched_tokens)
        world_local = args.data_parallel_size * args.tensor_parallel_size * \
            args.pipeline_parallel_size * args.prefill_context_parallel_size
        gpus = select_devices(args.device_ids, world_local, os.environ)
    except (ConfigError, ValueError) as exc:
        log.error("Invalid configuration: %s", exc)
        return 1
    log.info("GPUs for %d rank(s): %s (physical), --device-ids %s", world_local,
             [g for _, g in gpus], args.device_ids)
    served = args.served_model_name or [model]
    try:
        sock = create_server_socket(args.host, args.port)
    except OSError as exc:
        log.error("Failed to bind the API server to %s:%d: [Errno %s] %s", args.host or "",
                  args.port, exc.errno, exc.strerror)
        return 1
    engine = Engine(args, model, gpus)

    def on_signal(signum, _frame):
        engine.stop()
        sys.exit(0 if signum == signal.SIGTERM else 130)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    engine.start()
    dead = engine.wait_ready()
    if dead is not None:
        log.error("Engine core initialization failed: %s. See the root cause above.", dead)
        engine.stop()
        return 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    server = Server(args, engine, model, served, max_model_len)
    try:
        return run_serving(serve(server, sock, args.host, args.port))
    finally:
        engine.stop()


if __name__ == "__main__":
    sys.exit(main())

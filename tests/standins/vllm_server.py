#!/usr/bin/python3
"""Stand-in for ``vllm serve MODEL ...`` (vLLM V1 OpenAI server), run as tests/standins/bin/vllm:
the API server process, its HTTP routes other than generation, serve() and main().

Facts followed (read, not copied; no vLLM code is copied): NVIDIA/srt-slurm
src/srtctl/backends/vllm.py @ 009a4fa3 (the worker argv, get_process_environment: ``VLLM_PORT``,
the process titles), src/srtctl/ports.py and endpoints_to_processes (ports per process);
vllm-project/vllm vllm/entrypoints/openai/cli_args.py @ 00522333 (make_arg_parser, FrontendArgs,
validate_parsed_serve_args) and vllm/engine/arg_utils.py (an annotated copy of unknown commit);
SemiAnalysisAI/InferenceX benchmarks/srt_agentic.sh (its AIPERF_REQUIRED_SERVER_METRIC_PREFIX
requires the ``vllm:`` metrics). Modules: vllm_cli.py (the command line), vllm_engine_core.py
(process model, process names, GPU selection with ``--device-ids``, the EngineCore and
DPCoordinator children), vllm_completions.py (the generation endpoints and DP routing), this file.

- ``VLLM_PORT`` is the base of vLLM's get_open_port() scan (bind-test from VLLM_PORT upwards;
  unset: a kernel-chosen port); srt-spank's core/plan/vllm.cpp gives each worker its own. What
  listens on TCP:
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
- core/plan/vllm.cpp progress_metric(): ``/metrics`` on the API port with ``vllm:`` names,
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
  validate_parsed_serve_args does.

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
import os
import signal
import socket
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from aiohttp import web  # noqa: E402

import vllm_cli  # noqa: E402
from standin_common import env_int, raise_nofile_limit, run_serving, setup_logging  # noqa: E402
from standin_faults import Faults  # noqa: E402
from timing_model import TimingModel  # noqa: E402
from vllm_completions import Completions  # noqa: E402
from vllm_engine_core import ConfigError, Engine, select_devices, set_process_name  # noqa: E402

log = setup_logging("vllm")

DEFAULT_MAX_MODEL_LEN = 8192  # stand-in: the real one derives it from the model's config


def standin_version():
    return os.environ.get("SRT_STANDIN_VLLM_VERSION", "0.11.2")


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


class Server(Completions, Faults):
    def __init__(self, args, engine, model, served_names, max_model_len):
        self.args = args
        self.engine = engine
        self.model = model
        self.served_names = served_names
        self.max_model_len = max_model_len
        self.timing = TimingModel(protocol="tcp")
        self.eos_after = env_int("SRT_STANDIN_EOS_AFTER", 0)
        self.requests_total = 0
        self.init_faults(log)

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

    # -- faults (the lab knobs of every engine stand-in: standin_faults.py) ----------------
    def crash_if_due(self):
        self.crash_now(self.engine.ranks[0].process.pid, "EngineCore_DP0")


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

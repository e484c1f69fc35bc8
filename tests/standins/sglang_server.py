#!/usr/bin/python3
"""Stand-in for ``python3 -m sglang.launch_server`` (SGLang): the main process, its HTTP server and
main(). No SGLang code is copied.

Sources of every behaviour (read, not copied; a commit is the version read, the other files were
read in versions of unknown commit):
- sgl-project/sglang python/sglang/srt/server_args.py @ 001067ff: the command line (with
  python/sglang/srt/arg_groups/arg_utils.py @ 0116c606, see sglang_cli.py), check_server_args,
  PortArgs and the port deltas, the load-balance resolution, describe_kv_events_publisher;
- sgl-project/sglang python/sglang/srt/entrypoints/http_server.py (the routes,
  launch_dummy_health_check_server, the multi-tokenizer shared memory),
  python/sglang/srt/managers/data_parallel_controller.py, python/sglang/srt/managers/
  disagg_service.py, python/sglang/srt/disaggregation/common/conn.py @ 0094505d and
  python/sglang/srt/disaggregation/kv_events.py @ 006d053f;
- NVIDIA/srt-slurm src/srtctl/backends/sglang.py @ 00660c91 (the worker argv a launcher passes)
  and src/srtctl/frontends/sglang.py (the health gate before the router);
- the extracted CLI (sglang_cli.py).
Each module names the files its part follows.

The stand-in's modules: sglang_cli.py (the command line), sglang_config.py (the DP ranks this
node runs, check_server_args, --load-balance-method, --kv-events-config), sglang_ports.py (every
listener, the DP-attention port block, the TCPStore stand-in), sglang_scheduler.py (the process
model: one scheduler child per local DP rank, the watchdog, die-on-SIGQUIT), sglang_bootstrap.py
(P/D: the bootstrap server and the decode's handshake), sglang_completions.py (the generation
endpoints), and this file (the Server, its other HTTP routes, serve() and main()).

HTTP: /health, /health_generate, /ping, /v1/models (with max_model_len),
/get_model_info and /model_info, /server_info and /get_server_info (the server args, dp_size and
the ``kv_events`` descriptor), /flush_cache, /metrics (only with --enable-metrics, else 404:
``sglang:`` series), /v1/completions and /v1/chat/completions (SSE or not; usage in the stream only
with stream_options.include_usage; a chunk every --stream-interval tokens). Requests go round robin
over the DP ranks unless the body names one (``data_parallel_rank`` or ``routed_dp_rank``) or, on a
prefill, --load-balance-method resolves to follow_bootstrap_room (room mod dp_size; ``auto``
resolves to that on prefill and to round_robin elsewhere). Timing: timing_model.py, as the ATOM
stand-in (prefill per rank, KV transfer on decode: rdma for mori/mooncake, tcp for mooncake_tcp).
Node rank 0 binds the API at start, so that /health answers 503 while the model loads, then 200;
a node rank >= 1 binds a dummy /health, /health_generate, /ping server once its schedulers are up.
An HTTP port in use exits 3 (uvicorn's STARTUP_FAILURE); an argument SGLang refuses exits 1.

Knobs (environment, stand-in only): SRT_STANDIN_LOAD_SECONDS (0), SRT_STANDIN_PORT_WAIT_SECONDS
(30), SRT_STANDIN_HANDSHAKE_TIMEOUT_S (5), SRT_STANDIN_EOS_AFTER, the timing model's
(SRT_STANDIN_TOKEN_MS, _SEQ_US, _PREFILL_MS, _PREFILL_US_PER_TOKEN, _KV_BYTES_PER_TOKEN, _KV_GBPS),
SRT_STANDIN_CRASH_AFTER_REQUESTS=N with SRT_STANDIN_CRASH_MARKER=PATH (the request after the Nth
SIGKILLs the scheduler of DP rank 0; the server then dies as sglang_scheduler.py describes),
SRT_STANDIN_SGLANG_VERSION (pkg/sglang/version.py).
"""

import asyncio
import json
import os
import signal
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402

import sglang_cli  # noqa: E402
from sglang_bootstrap import Bootstrap  # noqa: E402
from sglang_completions import Completions  # noqa: E402
from sglang_config import Layout, check_server_args, parse_kv_events, resolve_load_balance  # noqa: E402
from sglang_ports import StartupError, bind_dp_attention_block  # noqa: E402
from sglang_scheduler import Rank, SchedulerPool  # noqa: E402
from standin_faults import Faults  # noqa: E402
from standin_common import (env_float, env_int, raise_nofile_limit, run_app, run_serving,  # noqa: E402
                            setup_logging)
from timing_model import TimingModel  # noqa: E402

log = setup_logging("sglang")


def standin_version():
    try:
        from sglang.version import __version__
        return __version__
    except ImportError:
        return "unknown (stand-in run without pkg/ on PYTHONPATH)"


class Server(SchedulerPool, Bootstrap, Completions, Faults):
    def __init__(self, args, layout, kv_cfg, kv_descriptor):
        self.args = args
        self.layout = layout
        self.kv_cfg = kv_cfg
        self.kv_descriptor = kv_descriptor
        self.model_name = args.served_model_name or args.model_path
        self.mode = args.disaggregation_mode
        self.load_balance = resolve_load_balance(args)
        self.ranks = [Rank(r) for r in range(args.dp_size)]  # every DP rank; local ones have a process
        self.local = [self.ranks[r] for r in layout.local]
        backend = args.disaggregation_transfer_backend
        self.timing = TimingModel(protocol="tcp" if backend == "mooncake_tcp" else "rdma")
        self.eos_after = env_int("SRT_STANDIN_EOS_AFTER", 0)
        self.handshake_timeout = env_float("SRT_STANDIN_HANDSHAKE_TIMEOUT_S", 5.0)
        self.init_faults(log)
        self.rr = -1
        self.ready = False
        self.stop = None
        self.failed = None
        self.requests_total = 0       # arrived
        self.requests_finished = 0    # sglang:num_requests_total
        self.prompt_tokens_total = 0
        self.generation_tokens_total = 0
        self.bootstrap_ok = {}        # (host, port) -> True once /route answered
        self.bootstrap_table = {"ranks": {}, "rooms": {}}
        self.session = None
        self.shm_path = None

    # -- apps ----------------------------------------------------------------------------
    def app(self):
        app = web.Application(client_max_size=512 * 1024 * 1024)
        r = app.router
        r.add_get("/health", self.health)
        r.add_get("/health_generate", self.health)
        r.add_get("/ping", self.health)
        r.add_get("/v1/models", self.models)
        r.add_get("/get_model_info", self.model_info)
        r.add_get("/model_info", self.model_info)
        r.add_get("/server_info", self.server_info)
        r.add_get("/get_server_info", self.server_info)
        r.add_route("*", "/flush_cache", self.flush_cache)
        r.add_post("/v1/completions", self.completions)
        r.add_post("/v1/chat/completions", self.chat_completions)
        if self.args.enable_metrics:
            r.add_get("/metrics", self.metrics)
        return app

    @staticmethod
    def dummy_app():
        """launch_dummy_health_check_server: node rank >= 1."""
        async def ok(_request):
            return web.Response(status=200)
        app = web.Application()
        for path in ("/health", "/health_generate", "/ping"):
            app.router.add_get(path, ok)
        return app

    # -- simple endpoints ----------------------------------------------------------------
    async def health(self, _request):
        return web.Response(status=200 if self.ready else 503)

    def max_model_len(self):
        return sglang_cli.human_readable_int(self.args.context_length) or 163840

    async def models(self, _request):
        return web.json_response({"object": "list", "data": [{
            "id": self.model_name, "object": "model", "created": int(time.time()),
            "owned_by": "sglang", "root": self.model_name, "max_model_len": self.max_model_len()}]})

    async def model_info(self, _request):
        return web.json_response({
            "model_path": self.args.model_path, "tokenizer_path": self.args.tokenizer_path or self.args.model_path,
            "is_generation": True, "preferred_sampling_params": None, "weight_version": "default",
            "has_image_understanding": False, "has_audio_understanding": False,
            "model_type": None, "architectures": None})

    async def server_info(self, _request):
        info = dict(vars(self.args))
        info.update({"dp_size": self.args.dp_size, "tp_size": self.args.tp_size, "pp_size": 1,
                     "load_balance_method": self.load_balance,
                     "served_model_name": self.model_name, "kv_events": self.kv_descriptor,
                     "version": standin_version(),
                     "internal_states": [{"dp_rank": r.dp_rank} for r in self.ranks]})
        return web.json_response(info)

    async def flush_cache(self, _request):
        return web.Response(text="Cache flushed.\n")

    async def metrics(self, _request):
        labels = f'model_name="{self.model_name}",engine_type="' + \
            {"null": "unified"}.get(self.mode, self.mode) + '"'
        lines = []
        lines += ["# HELP sglang:num_running_reqs The number of running requests.",
                  "# TYPE sglang:num_running_reqs gauge"]
        for r in self.ranks:
            lines.append(f'sglang:num_running_reqs{{{labels},dp_rank="{r.dp_rank}",pp_rank="0",'
                         f'tp_rank="0"}} {float(r.in_flight)}')
        lines += ["# HELP sglang:num_queue_reqs The number of requests in the waiting queue.",
                  "# TYPE sglang:num_queue_reqs gauge"]
        for r in self.ranks:
            lines.append(f'sglang:num_queue_reqs{{{labels},dp_rank="{r.dp_rank}",pp_rank="0",'
                         f'tp_rank="0"}} 0.0')
        for name, value, text in (
                ("sglang:prompt_tokens", self.prompt_tokens_total, "Number of prefill tokens processed."),
                ("sglang:generation_tokens", self.generation_tokens_total, "Number of generation tokens processed."),
                ("sglang:num_requests", self.requests_finished, "The number of processed requests.")):
            lines += [f"# HELP {name}_total {text}", f"# TYPE {name}_total counter",
                      f"{name}_total{{{labels}}} {float(value)}"]
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain", charset="utf-8")

    # -- lifecycle -----------------------------------------------------------------------
    async def serve(self):
        self.stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop.set)
        loop.add_signal_handler(signal.SIGQUIT, lambda: self.die(
            "Received sigquit from a child process. It usually means the child failed."))
        self.session = aiohttp.ClientSession()
        runners, background = [], []
        leader = self.args.node_rank == 0
        try:
            if leader:
                try:
                    runners.append(await run_app(self.app(), self.args.host, self.args.port, log))
                except OSError as exc:
                    log.error("[Errno %s] error while attempting to bind on address ('%s', %d): %s",
                              exc.errno, self.args.host, self.args.port, (exc.strerror or str(exc)).lower())
                    return 3  # uvicorn's STARTUP_FAILURE
                if self.mode == "prefill":
                    bs = await self.start_bootstrap_server()
                    if bs is not None:
                        runners.append(bs)
            announced = False
            while not self.stop.is_set():
                all_ready = self.poll_children()
                if self.failed is not None:
                    try:  # a group-wide SIGTERM kills the children too: a shutdown, not a failure
                        await asyncio.wait_for(self.stop.wait(), 0.3)
                    except asyncio.TimeoutError:
                        pass
                    if self.stop.is_set():
                        break
                    self.die(f"Scheduler DP{self.failed.dp_rank} (pid {self.failed.process.pid}) died "
                             f"with exit code {self.failed.process.exitcode}; killing the server")
                if all_ready and not announced:
                    announced = True
                    if not leader:
                        try:
                            runners.append(await run_app(self.dummy_app(), self.args.host, self.args.port, log,
                                                         banner="Dummy health check server on {host}:{port}"))
                        except OSError as exc:
                            log.error("[Errno %s] error while attempting to bind on address ('%s', %d): %s",
                                      exc.errno, self.args.host, self.args.port,
                                      (exc.strerror or str(exc)).lower())
                            return 3
                    if self.mode == "prefill":  # in the background: failures are only logged
                        background.append(asyncio.ensure_future(self.register_to_bootstrap()))
                    if not self.args.skip_server_warmup:
                        log.info("Warmup: skipped by the stand-in (no model to warm up)")
                    self.ready = True
                    log.info("The server is fired up and ready to roll!")
                try:
                    await asyncio.wait_for(self.stop.wait(), 0.1)
                except asyncio.TimeoutError:
                    pass
            log.info("Shutting down on signal")
            return 0
        finally:
            for task in background:
                task.cancel()
            for runner in runners:
                await runner.cleanup()
            await self.session.close()


def make_shm_segment(args):
    """--tokenizer-worker-num > 1: SGLang's multi_tokenizer_args_<pid> in /dev/shm (left behind
    on SIGKILL, removed on a clean exit), so teardown sweeps meet it."""
    if args.tokenizer_worker_num <= 1 or args.node_rank != 0 or not os.path.isdir("/dev/shm"):
        return None
    path = f"/dev/shm/multi_tokenizer_args_{os.getpid()}"
    try:
        with open(path, "wb") as f:
            f.write(json.dumps({"port": args.port, "workers": args.tokenizer_worker_num}).encode())
        return path
    except OSError:
        return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = sglang_cli.parse_args(argv)  # unknown option: argparse error, exit 2
    for warning in sglang_cli.deprecation_warnings(argv):
        log.warning("%s", warning)
    raise_nofile_limit()
    log.info("SGLang version %s (stand-in)", standin_version())
    try:
        check_server_args(args)
        sglang_cli.human_readable_int(args.context_length)
        kv_cfg, kv_descriptor = parse_kv_events(args)
        layout = Layout(args)
        held = bind_dp_attention_block(args, layout)
    except (StartupError, ValueError) as exc:
        log.error("Traceback (most recent call last): ... launch_server\n%s", exc)
        return 1
    server = Server(args, layout, kv_cfg, kv_descriptor)
    if layout.dpa:
        log.info("DP attention is enabled: %d attention-DP groups of attention TP %d",
                 layout.dp, layout.attn_tp)

    def on_signal(signum, _frame):
        server.stop_children()
        sys.exit(0)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGQUIT, lambda *_: server.die(
        "Received sigquit from a child process. It usually means the child failed."))
    server.spawn()
    server.shm_path = make_shm_segment(args)
    try:
        status = run_serving(server.serve())
    finally:
        server.stop_children()
        for sock in held:
            sock.close()
        if server.shm_path:
            try:
                os.unlink(server.shm_path)
            except OSError:
                pass
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Stand-in for ``python3 -m sglang.launch_server`` (SGLang, as the reference notes describe it).

Sources of every behaviour (no SGLang code is copied): ../shared/reference/engines-sglang-vllm.md
§0, §1, §2.1, §3.2, §6, §9 and sglang-mi355x.md §0-§2, §5, §6.1 (its corrections in §9 of the
former), and the extracted CLI (sglang_cli.py).

Process model (sglang-mi355x §1.1): one main process per worker per node (HTTP + the
TokenizerManager on node rank 0) and, as its children, one scheduler process per local DP rank
(each standing for that rank's TP group; "spawn" start method; comm name ``sglang::schedul``,
the first 15 characters of SGLang's ``sglang::scheduler…`` title; PR_SET_PDEATHSIG as SGLang's
kill_itself_when_parent_died). The detokenizer, DP controller and tokenizer workers are not
modelled as processes. A scheduler that fails sends SIGQUIT to the main process, and the main
process, like SGLang's sigquit handler, logs "Received sigquit from a child process. It usually
means the child failed." and kills its tree and itself (SIGKILL: exit status -9); a scheduler that
dies without a word (SIGKILL) is noticed by the stand-in's watchdog and takes the same path.
SIGTERM/SIGINT: the children are stopped and the server exits 0.

Listeners (sglang-mi355x §1.3; core/plan/sglang.cpp reserves and audits exactly these):
- HTTP on ``--host:--port`` (node rank 0: the API; node rank >= 1: a dummy server answering
  /health, /health_generate and /ping 200, bound once the schedulers are up). The API binds at
  start so that /health answers 503 while the model loads (SRT_STANDIN_LOAD_SECONDS), then 200.
- torch's TCPStore, held by the scheduler of DP rank 0 on node rank 0: ``--nccl-port`` on one node;
  with ``--dist-init-addr HOST:D`` the port D instead (the nccl port is then not bound).
- DP attention (main process): on one node ``P+233 … P+239`` on 127.0.0.1 (dist_init_port =
  P+233, port_base = P+234, then detokenizer, rpc, metrics, scheduler input, load collector) and
  the handshake ``P+13`` on ``--host``; with ``--dist-init-addr HOST:D`` on the leader ``D+1 … D+6``
  and ``D+13`` on HOST. Each is waited for up to 30 s (SRT_STANDIN_PORT_WAIT_SECONDS) and then
  fails with "<name> at <port> is not available in 30 seconds" (SGLang's wait_port_available),
  exit status 1. The real handshake REP on +13 is transient; the stand-in holds it (the Plan
  reserves and audits it).
- Prefill, node rank 0: the KV bootstrap server on ``--host:--disaggregation-bootstrap-port``
  (PUT/GET /route, /health, POST /register_dp_rank, /query_dp_ranks). A bind failure is only
  logged ("Server error: ...") and the server keeps starting, as SGLang's aiohttp thread does;
  its ranks then register with whichever server owns the port. Followers of a multi-node prefill
  register with the leader's port, which they learn from the leader's store stand-in on D (SGLang
  broadcasts world rank 0's bootstrap port; their own flag does not matter).
- ``--kv-events-config`` with publisher zmq: one publisher per attention-DP group on
  ``base + attn_dp_rank`` (without DP attention only DP rank 0 publishes), bound when the endpoint
  has ``*`` or ``::`` (else connected), framing [topic, seq, payload] (kv_events.py, offset mode).
- Not bound by the stand-in, although the real one binds them on kernel-chosen ports (get_free_port
  / bind_to_random_port / port 0, so an audit of a real node must ignore the ephemeral range): the
  random ``--nccl-port`` when it is not given, the per-rank TCPStore of DP ranks >= 1 without DP
  attention, the DP-attention per-rank scheduler inputs, the KV manager's ZMQ PULL and MoRI's
  IOEngine per rank. Leaving them out keeps every listening port of the lab deterministic.

HTTP (sglang-mi355x §6.1): /health, /health_generate, /ping, /v1/models (with max_model_len),
/get_model_info and /model_info, /server_info and /get_server_info (the server args, dp_size and
the ``kv_events`` descriptor), /flush_cache, /metrics (only with --enable-metrics, else 404:
``sglang:`` series), /v1/completions and /v1/chat/completions (SSE or not; usage in the stream only
with stream_options.include_usage; a chunk every --stream-interval tokens). Requests go round robin
over the DP ranks unless the body names one (``data_parallel_rank`` or ``routed_dp_rank``) or, on a
prefill, --load-balance-method resolves to follow_bootstrap_room (room mod dp_size; ``auto``
resolves to that on prefill and to round_robin elsewhere). Timing: timing_model.py, as the ATOM
stand-in (prefill per rank, KV transfer on decode: rdma for mori/mooncake, tcp for mooncake_tcp).

P/D (sglang-mi355x §2.2): a decode request carries bootstrap_host/bootstrap_port/bootstrap_room (a
null port means this server's own --disaggregation-bootstrap-port); before generating, the decode
GETs ``/route?prefill_dp_rank=-1`` on the prefill's bootstrap server (503 until every prefill DP
rank registered: retried) within SRT_STANDIN_HANDSHAKE_TIMEOUT_S (5) and checks page size and KV
dtype, else the request fails with HTTP 500. A decode request without bootstrap_host is a 400. The
prefill generates one token whatever max_tokens says (SGLang forces max_new_tokens to 1 there).

Knobs (environment, stand-in only): SRT_STANDIN_LOAD_SECONDS (0), SRT_STANDIN_PORT_WAIT_SECONDS
(30), SRT_STANDIN_HANDSHAKE_TIMEOUT_S (5), SRT_STANDIN_EOS_AFTER, the timing model's
(SRT_STANDIN_TOKEN_MS, _SEQ_US, _PREFILL_MS, _PREFILL_US_PER_TOKEN, _KV_BYTES_PER_TOKEN, _KV_GBPS),
SRT_STANDIN_CRASH_AFTER_REQUESTS=N with SRT_STANDIN_CRASH_MARKER=PATH (the request after the Nth
SIGKILLs the scheduler of DP rank 0; the server then dies as above), SRT_STANDIN_SGLANG_VERSION
(pkg/sglang/version.py).
"""

import asyncio
import ctypes
import json
import multiprocessing
import os
import queue
import signal
import socket
import sys
import time
import traceback
import uuid

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import aiohttp  # noqa: E402
import zmq  # noqa: E402
from aiohttp import web  # noqa: E402

import sglang_cli  # noqa: E402
from kv_events import KvEventPublisher, KvEventsConfig, block_stored  # noqa: E402
from standin_common import (SSE_DONE, bind_listener, env_float, env_int, raise_nofile_limit,  # noqa: E402
                            run_app, run_serving, setup_logging, sse_frame, start_sse)
from timing_model import Queue, TimingModel  # noqa: E402

log = setup_logging("sglang")

ZMQ_TCP_PORT_DELTA = 233                # server_args.py @ 001067ff
DP_ATTENTION_HANDSHAKE_PORT_DELTA = 13  # data_parallel_controller._broadcast_worker_ports
DERIVED_PORT_NAMES = ("dist_init_port", "port_base", "detokenizer_port", "rpc_port",
                      "metrics_ipc_port", "scheduler_input_port", "load_collector_port")
PR_SET_PDEATHSIG, PR_SET_NAME = 1, 15


def standin_version():
    try:
        from sglang.version import __version__
        return __version__
    except ImportError:
        return "unknown (stand-in run without pkg/ on PYTHONPATH)"


class StartupError(Exception):
    """A failure SGLang reports with a traceback and exit status 1."""


# ---------------------------------------------------------------------------------------
# Topology: which DP ranks this node's process runs, which publish, who holds the store
# ---------------------------------------------------------------------------------------

class Layout:
    def __init__(self, args):
        self.tp, self.dp, self.nnodes, self.node_rank = args.tp_size, args.dp_size, args.nnodes, args.node_rank
        self.dpa = bool(args.enable_dp_attention)
        self.attn_tp = self.tp // self.dp if self.dpa else self.tp
        self.attn_dp_size = self.dp if self.dpa else 1
        self.gpus_per_node = self.tp // self.nnodes
        lo, hi = self.node_rank * self.gpus_per_node, (self.node_rank + 1) * self.gpus_per_node
        if self.dpa:
            # attention-DP group r spans GPUs [r*attn_tp, (r+1)*attn_tp); its leader publishes.
            self.local = [r for r in range(self.dp)
                          if r * self.attn_tp < hi and (r + 1) * self.attn_tp > lo]
            self.leaders = [r for r in self.local if lo <= r * self.attn_tp < hi]
        elif self.nnodes == 1:
            self.local, self.leaders = list(range(self.dp)), list(range(self.dp))
        else:  # one TP group over the nodes (multi-node DP needs DP attention)
            self.local, self.leaders = [0], [0] if self.node_rank == 0 else []


def check_server_args(args):
    """The limits of SGLang's check_server_args the lab can meet (engines-sglang-vllm.md §1)."""
    problems = []
    if args.tp_size % args.nnodes != 0:
        problems.append("tp_size must be divisible by number of nodes")
    if args.nnodes > 1 and args.dp_size > 1 and not args.enable_dp_attention:
        problems.append("multi-node data parallel is not supported unless dp attention!")
    if args.enable_dp_attention and args.tp_size % args.dp_size != 0:
        problems.append("tp_size must be divisible by dp_size with dp attention")
    if args.tokenizer_worker_num < 1:
        problems.append("Tokenizer worker num must >= 1")
    if not 0 <= args.node_rank < args.nnodes:
        problems.append("node_rank must be in [0, nnodes)")
    if args.nnodes > 1 and not args.dist_init_addr:
        problems.append("--dist-init-addr is required when nnodes > 1")
    if problems:
        raise StartupError("AssertionError: " + problems[0])


def split_host_port(addr):
    host, _, port = addr.rpartition(":")
    return host.strip("[]"), int(port)


def resolve_load_balance(args):
    if args.load_balance_method != "auto":
        return args.load_balance_method
    return "follow_bootstrap_room" if args.disaggregation_mode == "prefill" else "round_robin"


def parse_kv_events(args):
    """(config dict, descriptor for /server_info or None) from --kv-events-config."""
    if not args.kv_events_config:
        return None, None
    cfg = json.loads(args.kv_events_config)  # a bad JSON is a traceback, as in SGLang
    cfg.setdefault("publisher", "null")
    cfg.setdefault("endpoint", "tcp://*:5557")
    cfg.setdefault("topic", "")
    descriptor = None
    endpoint = cfg["endpoint"]
    if cfg["publisher"] == "zmq" and endpoint.startswith("tcp://"):
        host, port = split_host_port(endpoint[len("tcp://"):])
        descriptor = {"publisher": "zmq", "endpoint_host": host, "endpoint_port_base": port,
                      "topic": cfg["topic"], "block_size": (args.page_size or 1) * 1,  # x dcp_size 1
                      "dp_size": args.dp_size if args.enable_dp_attention else 1}
    return cfg, descriptor


# ---------------------------------------------------------------------------------------
# Ports held by the main process
# ---------------------------------------------------------------------------------------

def wait_and_bind(host, port, name, timeout):
    """SGLang's wait_port_available, then the bind: retry while busy, fail after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return bind_listener(host, port)
        except OSError as exc:
            if time.monotonic() >= deadline:
                raise StartupError(f"ValueError: {name} at {port} is not available in "
                                   f"{int(timeout) if timeout == int(timeout) else timeout} seconds") from exc
            time.sleep(0.1)


def bind_dp_attention_block(args, layout):
    """Under DP attention: the ZMQ block and the handshake port (sglang-mi355x §1.3)."""
    if not layout.dpa:
        return []
    timeout = env_float("SRT_STANDIN_PORT_WAIT_SECONDS", 30.0)
    if args.dist_init_addr:
        if args.node_rank != 0:
            return []
        host, dist_init_port = split_host_port(args.dist_init_addr)
        block = [(host, dist_init_port + i, DERIVED_PORT_NAMES[i]) for i in range(1, 7)]
        handshake = (host, dist_init_port + DP_ATTENTION_HANDSHAKE_PORT_DELTA)
    else:
        dist_init_port = args.port + ZMQ_TCP_PORT_DELTA
        block = [("127.0.0.1", dist_init_port + i, DERIVED_PORT_NAMES[i]) for i in range(7)]
        handshake = (args.host if args.host not in ("", None) else "127.0.0.1",
                     args.port + DP_ATTENTION_HANDSHAKE_PORT_DELTA)
    held = []
    for host, port, name in block:
        held.append(wait_and_bind(host, port, name, timeout))
        log.info("DP attention: %s listening on %s:%d", name, host, port)
    try:
        held.append(bind_listener(handshake[0], handshake[1]))
    except OSError as exc:
        raise StartupError(f"zmq.error.ZMQError: Address already in use (addr='tcp://"
                           f"{handshake[0]}:{handshake[1]}')") from exc
    log.info("DP attention handshake listening on %s:%d", *handshake)
    return held


# ---------------------------------------------------------------------------------------
# Scheduler (child process)
# ---------------------------------------------------------------------------------------

def _prctl(option, arg):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, arg, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def scheduler_main(spec, ready_conn, requests):
    """One scheduler (one DP rank's TP group). Exit codes: 0 stopped, 1 failed."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _prctl(PR_SET_NAME, ctypes.c_char_p(f"sglang::scheduler_DP{spec['dp_rank']}".encode()[:15]))
    slog = setup_logging(f"sglang.scheduler_DP{spec['dp_rank']}")
    parent = os.getppid()
    held, publisher, ctx = [], None, zmq.Context()
    try:
        if spec["store_port"] is not None:
            held.append(bind_listener("0.0.0.0", spec["store_port"]))
            slog.info("torch.distributed TCPStore listening on port %d", spec["store_port"])
        slog.info("Load weight begin (simulated %.1fs)", spec["load_seconds"])
        deadline = time.monotonic() + spec["load_seconds"]
        while time.monotonic() < deadline:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        kv = spec["kv_events"]
        if spec["publish"] and kv and kv.get("publisher") == "zmq":
            endpoint, rank = kv["endpoint"], spec["attn_dp_rank"]
            if rank > 0 and endpoint.startswith("ipc://"):
                raise ValueError(f"Invalid endpoint: {endpoint} for data parallel rank {rank}")
            connect = not ("*" in endpoint or "::" in endpoint or
                           endpoint.startswith(("ipc://", "inproc://")))
            env = {"ATOM_KV_EVENTS_ENABLE": "1", "ATOM_KV_EVENTS_ENDPOINT": endpoint,
                   "ATOM_KV_EVENTS_TOPIC": kv.get("topic", ""),
                   "ATOM_KV_EVENTS_HWM": str(kv.get("hwm", 100000)),
                   "ATOM_KV_EVENTS_BUFFER_STEPS": str(kv.get("buffer_steps", 10000)),
                   "ATOM_KV_EVENTS_REPLAY_ENDPOINT": kv.get("replay_endpoint") or "",
                   "SRT_STANDIN_KV_BEHAVIOUR": "offset"}
            publisher = KvEventPublisher(ctx, KvEventsConfig(env), rank, slog, connect=connect)
    except Exception:  # noqa: BLE001 - SGLang: log, SIGQUIT the parent, exit
        slog.error("Scheduler hit an exception: %s", traceback.format_exc())
        try:
            os.kill(parent, signal.SIGQUIT)
        finally:
            os._exit(1)
    ready_conn.send(("ready", spec["dp_rank"]))
    ready_conn.close()
    store = held[0] if held else None
    if store is not None:
        store.setblocking(False)
    seq = 0
    while True:
        if os.getppid() != parent:
            os._exit(1)
        if store is not None:
            answer_store(store, spec)
        try:
            kind, prompt_tokens, seed = requests.get(timeout=0.2)
        except queue.Empty:
            continue
        if kind == "stop":
            return 0
        if publisher is not None:
            page = spec["page_size"]
            blocks = max(1, prompt_tokens // page)
            hashes = [(seed * 1000003 + i) & 0x7FFFFFFFFFFFFFFF for i in range(blocks)]
            tokens = [(seed + i) % 32000 for i in range(min(prompt_tokens, blocks * page))]
            publisher.publish([block_stored(hashes, None, tokens, page)])
            seq += 1


def answer_store(store, spec):
    """The TCPStore stand-in answers every connection with what SGLang broadcasts over torch
    distributed: world rank 0's bootstrap port (_sync_bootstrap_port_across_nodes), so a
    multi-node prefill's followers register with the leader's bootstrap server."""
    while True:
        try:
            conn, _ = store.accept()
        except (BlockingIOError, OSError):
            return
        try:
            conn.settimeout(1.0)
            conn.sendall(json.dumps({"bootstrap_port": spec["bootstrap_port"]}).encode() + b"\n")
        except OSError:
            pass
        finally:
            conn.close()


def leader_bootstrap_port(dist_init_addr, timeout):
    """A follower's view of the leader's bootstrap port (see answer_store); None if unreachable."""
    host, port = split_host_port(dist_init_addr)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1.0) as conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                return int(json.loads(data)["bootstrap_port"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.5)
    return None


class Rank:
    def __init__(self, dp_rank):
        self.dp_rank = dp_rank
        self.process = None
        self.ready_conn = None
        self.requests = None
        self.ready = False
        self.in_flight = 0
        self.decoding = 0
        self.prefill_queue = Queue()


# ---------------------------------------------------------------------------------------
# The server (main process)
# ---------------------------------------------------------------------------------------

def openai_error(status, message, err_type="BadRequestError"):
    return web.json_response({"object": "error", "message": message, "type": err_type,
                              "param": None, "code": status}, status=status)


class Server:
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
        self.crash_after = env_int("SRT_STANDIN_CRASH_AFTER_REQUESTS", 0)
        self.crash_marker = os.environ.get("SRT_STANDIN_CRASH_MARKER", "")
        self.crashed = False
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

    # -- children ------------------------------------------------------------------------
    def spawn(self):
        ctx = multiprocessing.get_context("spawn")
        load = env_float("SRT_STANDIN_LOAD_SECONDS", 0.0)
        store_port = None
        if self.args.node_rank == 0:
            store_port = (split_host_port(self.args.dist_init_addr)[1] if self.args.dist_init_addr
                          else self.args.nccl_port)
        for rank in self.local:
            spec = {"dp_rank": rank.dp_rank, "attn_dp_rank": rank.dp_rank if self.layout.dpa else 0,
                    "publish": rank.dp_rank in self.layout.leaders and (self.layout.dpa or rank.dp_rank == 0),
                    "store_port": store_port if rank.dp_rank == self.local[0].dp_rank else None,
                    "kv_events": self.kv_cfg, "page_size": self.args.page_size or 1,
                    "bootstrap_port": self.args.disaggregation_bootstrap_port,
                    "load_seconds": load}
            recv, send = ctx.Pipe(duplex=False)
            rank.requests = ctx.Queue()
            rank.process = ctx.Process(target=scheduler_main, args=(spec, send, rank.requests),
                                       name=f"sglang::scheduler_DP{rank.dp_rank}", daemon=False)
            rank.process.start()
            send.close()
            rank.ready_conn = recv
            log.info("Launched scheduler DP%d (pid %d)", rank.dp_rank, rank.process.pid)

    def stop_children(self, grace=3.0):
        for rank in self.local:
            if rank.process is not None and rank.process.is_alive():
                rank.process.terminate()
        deadline = time.monotonic() + grace
        for rank in self.local:
            if rank.process is None:
                continue
            rank.process.join(max(0.0, deadline - time.monotonic()))
            if rank.process.is_alive():
                rank.process.kill()
                rank.process.join(1.0)

    def poll_children(self):
        """True once every local scheduler reported ready; records a dead one in self.failed."""
        for rank in self.local:
            if not rank.ready and rank.ready_conn.poll():
                try:
                    rank.ready_conn.recv()
                    rank.ready = True
                except EOFError:
                    pass
            if rank.process.exitcode is not None and self.failed is None:
                self.failed = rank
        return all(rank.ready for rank in self.local)

    def die(self, message):
        """SGLang's sigquit handler: kill_process_tree(os.getpid()), itself included."""
        log.error("%s", message)
        for rank in self.local:
            if rank.process is not None and rank.process.is_alive():
                rank.process.kill()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)

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

    def bootstrap_app(self):
        app = web.Application()
        app.router.add_get("/health", self.bs_health)
        app.router.add_put("/route", self.bs_register)
        app.router.add_get("/route", self.bs_route)
        app.router.add_post("/register_dp_rank", self.bs_register_room)
        app.router.add_post("/query_dp_ranks", self.bs_query_rooms)
        return app

    # -- bootstrap server (prefill, node rank 0) -----------------------------------------
    async def bs_health(self, _request):
        return web.Response(text="OK")

    async def bs_register(self, request):
        info = await request.json()
        self.bootstrap_table["ranks"][int(info.get("attn_dp_rank", 0))] = info
        return web.Response(text="OK")

    async def bs_route(self, request):
        table = self.bootstrap_table["ranks"]
        expected = self.layout.attn_dp_size if self.layout.dpa else self.args.dp_size
        if len(table) < expected:
            return web.Response(status=503, text=f"Prefill server not fully registered yet: "
                                                 f"{len(table)}/{expected} ranks")
        rank = request.query.get("prefill_dp_rank", "-1")
        if rank not in ("-1", ""):
            info = table.get(int(rank))
            if info is None:
                return web.Response(status=404, text=f"prefill dp rank {rank} not registered")
            return web.json_response(info)
        any_info = table[min(table)]
        return web.json_response({
            "attn_tp_size": self.layout.attn_tp, "attn_cp_size": 1, "dp_size": expected,
            "pp_size": 1, "page_size": any_info.get("page_size"),
            "kv_cache_dtype": any_info.get("kv_cache_dtype"),
            "follow_bootstrap_room": any_info.get("load_balance_method") == "follow_bootstrap_room",
            "prefill_http_port": any_info.get("prefill_http_port")})

    async def bs_register_room(self, request):
        body = await request.json()
        self.bootstrap_table["rooms"][str(body.get("bootstrap_room"))] = body.get("dp_rank")
        return web.Response(text="OK")

    async def bs_query_rooms(self, request):
        body = await request.json()
        rooms = self.bootstrap_table["rooms"]
        return web.json_response({str(r): rooms.get(str(r)) for r in body.get("bootstrap_rooms", [])})

    async def register_to_bootstrap(self):
        """Each prefill DP leader PUTs /route to H:B (H = dist-init host, else --host with 0.0.0.0
        read as 127.0.0.1), 5 tries with back-off, then only an error in the log."""
        host = (split_host_port(self.args.dist_init_addr)[0] if self.args.dist_init_addr
                else self.args.host)
        host = "127.0.0.1" if host in ("0.0.0.0", "", None) else host
        port = self.args.disaggregation_bootstrap_port
        if self.args.node_rank > 0:  # world rank 0's port, broadcast over the distributed store
            port = await asyncio.get_running_loop().run_in_executor(
                None, leader_bootstrap_port, self.args.dist_init_addr, 60.0)
            if port is None:
                log.error("Could not learn the leader's bootstrap port from %s", self.args.dist_init_addr)
                return
        url = f"http://{host}:{port}/route"
        for dp_rank in self.layout.leaders:
            info = {"role": "Prefill", "attn_tp_rank": 0, "attn_tp_size": self.layout.attn_tp,
                    "attn_cp_rank": 0, "attn_dp_rank": dp_rank, "pp_rank": 0,
                    "rank_ip": os.environ.get("SGLANG_HOST_IP") or host, "rank_port": 0,
                    "page_size": self.args.page_size or 1, "kv_cache_dtype": self.args.kv_cache_dtype,
                    "load_balance_method": self.load_balance, "prefill_http_port": self.args.port}
            for attempt in range(5):
                try:
                    async with self.session.put(url, json=info,
                                                timeout=aiohttp.ClientTimeout(total=2)) as resp:
                        if resp.status == 200:
                            break
                        error = f"HTTP {resp.status}"
                except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
                    error = f"{type(exc).__name__} {exc}"
                await asyncio.sleep(0.2 * (attempt + 1))
            else:
                log.error("Failed to register to bootstrap server %s: %s", url, error)

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

    # -- generation ----------------------------------------------------------------------
    async def read_body(self, request):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, openai_error(400, "Invalid JSON body")
        if not isinstance(body, dict):
            return None, openai_error(400, "body must be a JSON object")
        return body, None

    async def completions(self, request):
        body, error = await self.read_body(request)
        if error is not None:
            return error
        prompt = body.get("prompt")
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], list):
            prompt = prompt[0]
        if isinstance(prompt, str):
            tokens = len(prompt.split())
        elif isinstance(prompt, list) and all(isinstance(t, int) for t in prompt):
            tokens = len(prompt)
        else:
            return openai_error(400, "prompt must be a string or a list of token ids")
        limit = body.get("max_tokens")
        return await self.generate(request, body, tokens, "text_completion",
                                   16 if limit is None else int(limit))

    async def chat_completions(self, request):
        body, error = await self.read_body(request)
        if error is not None:
            return error
        messages = body.get("messages")
        if not isinstance(messages, list):
            return openai_error(400, "messages must be a list")
        tokens = sum(len(str(m.get("content", "")).split()) for m in messages if isinstance(m, dict))
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        return await self.generate(request, body, tokens, "chat.completion",
                                   8192 if limit is None else int(limit))

    def pick_rank(self, body):
        for key in ("data_parallel_rank", "routed_dp_rank"):
            value = body.get(key)
            if isinstance(value, int) and 0 <= value < len(self.ranks):
                return self.ranks[value]
        room = body.get("bootstrap_room")
        if self.load_balance == "follow_bootstrap_room" and isinstance(room, int):
            return self.ranks[room % len(self.ranks)]
        if self.load_balance in ("total_requests", "total_tokens"):
            return min(self.ranks, key=lambda r: r.in_flight)
        self.rr = (self.rr + 1) % len(self.ranks)
        return self.ranks[self.rr]

    async def bootstrap_handshake(self, body):
        """Decode: reach the prefill's bootstrap server (GET /route) before generating."""
        host = body.get("bootstrap_host")
        if not host:
            raise ValueError("disaggregated decode needs bootstrap_host and bootstrap_room in the request "
                             "(sent by the router)")
        port = body.get("bootstrap_port")
        port = self.args.disaggregation_bootstrap_port if port is None else int(port)
        if self.bootstrap_ok.get((host, port)):
            return
        url = f"http://{host}:{port}/route?prefill_dp_rank=-1"
        deadline = time.monotonic() + self.handshake_timeout
        last = "no answer"
        while time.monotonic() < deadline:
            try:
                left = max(0.1, deadline - time.monotonic())
                async with self.session.get(url, timeout=aiohttp.ClientTimeout(total=left)) as resp:
                    if resp.status == 200:
                        info = await resp.json(content_type=None)
                        mine = self.args.page_size or 1
                        if info.get("page_size") not in (None, mine):
                            raise RuntimeError(
                                f"Page size mismatch: prefill server has page size {info.get('page_size')}, "
                                f"decode server has page size {mine}. Both servers must use the same --page-size")
                        if info.get("kv_cache_dtype") not in (None, self.args.kv_cache_dtype):
                            raise RuntimeError(
                                f"KV cache dtype mismatch: prefill {info.get('kv_cache_dtype')}, decode "
                                f"{self.args.kv_cache_dtype}")
                        self.bootstrap_ok[(host, port)] = True
                        return
                    last = f"HTTP {resp.status}: {(await resp.text())[:200]}"
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
                last = f"{type(exc).__name__} {exc}"
            await asyncio.sleep(0.2)
        raise RuntimeError(f"Could not reach the prefill bootstrap server at {host}:{port} within "
                           f"{self.handshake_timeout:g}s (GET /route): {last}")

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
        victim = self.local[0].process
        log.error("stand-in: scheduler DP%d crashes after %d requests (SRT_STANDIN_CRASH_AFTER_REQUESTS)",
                  self.local[0].dp_rank, self.crash_after)
        os.kill(victim.pid, signal.SIGKILL)

    def budget(self, body, limit):
        if self.mode == "prefill":
            return 1, "length"  # SGLang prefill: max_new_tokens forced to 1
        if self.eos_after and not body.get("ignore_eos") and self.eos_after < limit:
            return self.eos_after, "stop"
        return limit, "length"

    async def generate(self, request, body, prompt_tokens, obj, limit):
        if not self.ready:
            return openai_error(503, "The server is not ready yet", "ServiceUnavailableError")
        if self.mode == "decode":
            try:
                await self.bootstrap_handshake(body)
            except ValueError as exc:
                return openai_error(400, str(exc))
            except RuntimeError as exc:
                log.error("KV bootstrap failed: %s", exc)
                return openai_error(500, str(exc), "InternalServerError")
        rank = self.pick_rank(body)
        n_tokens, finish = self.budget(body, limit)
        self.requests_total += 1
        self.prompt_tokens_total += prompt_tokens
        if rank.requests is not None:
            try:
                rank.requests.put_nowait(("req", prompt_tokens, self.requests_total))
            except Exception:  # noqa: BLE001 - KV events are advisory
                pass
        self.crash_if_due()
        request_id = uuid.uuid4().hex
        rank.in_flight += 1
        try:
            if body.get("stream"):
                answer = await self.stream(request, body, request_id, obj, rank, prompt_tokens,
                                           n_tokens, finish)
            else:
                answer = await self.complete(request_id, obj, rank, prompt_tokens, n_tokens, finish)
            self.requests_finished += 1
            return answer
        finally:
            rank.in_flight -= 1

    async def first_token(self, rank, prompt_tokens):
        if self.mode == "decode":
            await self.timing.kv_transfer(prompt_tokens)
        else:
            await self.timing.prefill(rank.prefill_queue, prompt_tokens)

    def choice(self, obj, text, finish):
        if obj == "chat.completion":
            return {"index": 0, "delta": {"role": "assistant", "content": text}, "logprobs": None,
                    "finish_reason": finish, "matched_stop": None}
        return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                "matched_stop": None}

    async def stream(self, request, body, request_id, obj, rank, prompt_tokens, n_tokens, finish):
        chunk_obj = "chat.completion.chunk" if obj == "chat.completion" else "text_completion"
        response = await start_sse(request)
        base = {"id": request_id, "object": chunk_obj, "model": self.model_name}
        interval = max(1, self.args.stream_interval)
        await self.first_token(rank, prompt_tokens)
        rank.decoding += 1
        pending = 0
        try:
            for i in range(n_tokens):
                if i:
                    await self.timing.decode_step(rank.decoding)
                self.generation_tokens_total += 1
                pending += 1
                last = i == n_tokens - 1
                if pending >= interval or last:
                    chunk = dict(base, created=int(time.time()),
                                 choices=[self.choice(obj, " tok" * pending, finish if last else None)])
                    await response.write(sse_frame(chunk))
                    pending = 0
        finally:
            rank.decoding -= 1
        tail = b""
        if (body.get("stream_options") or {}).get("include_usage"):
            tail += sse_frame(dict(base, created=int(time.time()), choices=[], usage={
                "prompt_tokens": prompt_tokens, "completion_tokens": n_tokens,
                "total_tokens": prompt_tokens + n_tokens, "prompt_tokens_details": None}))
        await response.write(tail + SSE_DONE)
        await response.write_eof()
        return response

    async def complete(self, request_id, obj, rank, prompt_tokens, n_tokens, finish):
        started = time.time()
        await self.first_token(rank, prompt_tokens)
        rank.decoding += 1
        try:
            for _ in range(max(0, n_tokens - 1)):
                await self.timing.decode_step(rank.decoding)
        finally:
            rank.decoding -= 1
        self.generation_tokens_total += n_tokens
        text = " tok" * n_tokens
        if obj == "chat.completion":
            choice = {"index": 0, "message": {"role": "assistant", "content": text,
                                              "reasoning_content": None, "tool_calls": None},
                      "logprobs": None, "finish_reason": finish, "matched_stop": None}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                      "matched_stop": None}
        return web.json_response({
            "id": request_id, "object": obj, "created": int(started), "model": self.model_name,
            "choices": [choice],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n_tokens,
                      "total_tokens": prompt_tokens + n_tokens, "prompt_tokens_details": None}})

    # -- lifecycle -----------------------------------------------------------------------
    async def start_bootstrap_server(self):
        """The prefill's KV bootstrap server: a bind failure is only logged."""
        try:
            runner = await run_app(self.bootstrap_app(), self.args.host,
                                   self.args.disaggregation_bootstrap_port, log,
                                   banner="KV bootstrap server started on {host}:{port}")
            return runner
        except OSError as exc:
            log.error("Server error: [Errno %s] error while attempting to bind on address ('%s', %d): %s",
                      exc.errno, self.args.host, self.args.disaggregation_bootstrap_port,
                      (exc.strerror or str(exc)).lower())
            return None

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

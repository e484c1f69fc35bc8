"""The SGLang stand-in's scheduler child processes, one per local DP rank, and the main process's
side of them: start, readiness, the watchdog's poll, the stop and SGLang's die-on-SIGQUIT (part of
sglang_server.py's stand-in; the Server class mixes SchedulerPool in).

Sources (read, not copied): sgl-project/sglang python/sglang/srt/managers/
data_parallel_controller.py (launch_dp_schedulers / launch_dp_attention_schedulers, the
schedulers' kill_itself_when_parent_died from python/sglang/srt/utils/common.py), the scheduler's
init_kv_events (one publisher per attention-DP group) and python/sglang/srt/disaggregation/
kv_events.py @ 006d053f (offset_endpoint_port, bind-or-connect); python/sglang/srt/entrypoints/
http_server.py (the main process: HTTP + TokenizerManager).

Process model: one main process per worker per node (HTTP + the TokenizerManager on node rank 0)
and, as its children, one scheduler process per local DP rank (each standing for that rank's TP
group; "spawn" start method; comm name ``sglang::schedul``, the first 15 characters of SGLang's
``sglang::scheduler…`` title; PR_SET_PDEATHSIG as SGLang's kill_itself_when_parent_died). The
detokenizer, DP controller and tokenizer workers are not modelled as processes. A scheduler that
fails sends SIGQUIT to the main process, and the main process, like SGLang's sigquit handler,
logs "Received sigquit from a child process. It usually means the child failed." and kills its
tree and itself (SIGKILL: exit status -9); a scheduler that dies without a word (SIGKILL) is
noticed by the stand-in's watchdog (poll_children, called by Server.serve) and takes the same
path. SIGTERM/SIGINT: the children are stopped and the server exits 0.

The scheduler of DP rank 0 on node rank 0 holds torch's TCPStore (sglang_ports.py); a scheduler
that leads an attention-DP group publishes KV events as sglang_ports.py describes, one
BlockStored per request. SRT_STANDIN_CRASH_AFTER_REQUESTS (crash_if_due) SIGKILLs the scheduler
of the first local DP rank.
"""

import ctypes
import logging
import multiprocessing
import os
import queue
import signal
import sys
import time
import traceback

import zmq

from kv_events import KvEventPublisher, KvEventsConfig, block_stored
from sglang_ports import answer_store, split_host_port
from standin_common import bind_listener, env_float, setup_logging
from timing_model import Queue

log = logging.getLogger("sglang")


PR_SET_PDEATHSIG, PR_SET_NAME = 1, 15


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


class SchedulerPool:
    """Server's scheduler children (a mixin: uses self.args, self.layout, self.kv_cfg,
    self.local, self.failed, and for crash_if_due the request counters and crash knobs)."""

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

    def crash_if_due(self):
        """SRT_STANDIN_CRASH_AFTER_REQUESTS (standin_faults.py): the first local scheduler dies."""
        self.crash_now(self.local[0].process.pid, f"scheduler DP{self.local[0].dp_rank}")

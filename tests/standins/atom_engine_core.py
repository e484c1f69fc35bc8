"""One ATOM EngineCore (one DP rank) as a child process of the stand-in server.

What a rank binds, in ATOM's order (engine_core_mgr.py, model_runner.py, scheduler.py,
mooncake_connector.py at ffdf3bb):
1. distributed init, before the model loads. Global rank 0 owns the torch TCPStores:
   MASTER_PORT (the server's --port) and the init-method port ATOM_DP_BASE_PORT; with DP > 1
   DP rank 0 also owns the gloo DP group's store on ATOM_DP_MASTER_PORT.
2. model load (SRT_STANDIN_LOAD_SECONDS) and, in the real engine, CUDA-graph capture.
3. Mooncake connector per TP rank: a ZMQ ROUTER on tcp://*:(handshake_port + offset).
4. Scheduler: the KV-event publisher (after the load: the seed's collision came only after
   64 shards were loaded).
A bind failure raises out of the rank; the process exits 1 with the traceback in its log and
the parent notices (atom_server.py).
"""

import os
import queue
import sys
import time
import traceback

import msgpack
import zmq

from kv_events import KvEventPublisher, KvEventsConfig, block_stored
from standin_common import bind_listener, host_ip, setup_logging

PERIODIC_EVENT_SECONDS = 1.0  # keeps a late subscriber fed without a request


def handshake_port_for(base, pp_rank, dp_rank, tp_rank, dp_size, tp_size):
    """ATOM port_offset.py: handshake_port + pp_rank*(dp*tp) + dp_rank*tp + tp_rank."""
    return base + pp_rank * (dp_size * tp_size) + dp_rank * tp_size + tp_rank


class EngineCore:
    def __init__(self, spec, log):
        self.spec = spec
        self.log = log
        self.ctx = zmq.Context()
        self.held_sockets = []  # TCPStore stand-ins: bound and listening, never accepted
        self.handshake_sockets = []
        self.publisher = None
        self.events_published = 0
        self.parent_pid = os.getppid()

    # -- startup -------------------------------------------------------------------------
    def init_distributed(self):
        spec = self.spec
        if spec["global_rank"] == 0:
            self.held_sockets.append(bind_listener("0.0.0.0", spec["master_port"]))
            self.log.info("TCPStore (MASTER_PORT) listening on port %d", spec["master_port"])
            if spec["dp_base_port"] is not None:
                self.held_sockets.append(bind_listener("0.0.0.0", spec["dp_base_port"]))
                self.log.info("init_method tcp://%s:%d store listening", spec["dp_master_ip"],
                              spec["dp_base_port"])
        if spec["dp_size"] > 1 and spec["dp_rank"] == 0 and spec["pp_rank"] == 0:
            self.held_sockets.append(bind_listener("0.0.0.0", spec["dp_master_port"]))
            self.log.info("DP gloo group store listening on %s:%d", spec["dp_master_ip"],
                          spec["dp_master_port"])

    def load_model(self):
        seconds = self.spec["load_seconds"]
        self.log.info("Loading model %s (simulated %.1fs)", self.spec["model"], seconds)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.exit_if_orphaned()
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))

    def init_kv_transfer(self):
        spec = self.spec
        if not spec["kv_role"]:
            return
        for tp_rank in range(spec["tp_size"]):
            port = handshake_port_for(spec["handshake_port"], spec["pp_rank"], spec["dp_rank"],
                                      tp_rank, spec["dp_size"], spec["tp_size"])
            sock = self.ctx.socket(zmq.ROUTER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.bind(f"tcp://*:{port}")
            self.handshake_sockets.append((sock, tp_rank, port))
            self.log.info("Mooncake side channel (%s) bound tcp://*:%d for dp=%d tp=%d",
                          spec["kv_role"], port, spec["dp_rank"], tp_rank)

    def init_kv_events(self):
        config = KvEventsConfig()
        # Only the head PP stage runs a Scheduler, so only it publishes.
        if config.active and self.spec["pp_rank"] == 0:
            self.publisher = KvEventPublisher(self.ctx, config, self.spec["dp_rank"], self.log)

    # -- serving -------------------------------------------------------------------------
    def exit_if_orphaned(self):
        # ATOM's EngineCores die with their server; a SIGKILLed parent must not leave ranks.
        if os.getppid() != self.parent_pid:
            self.log.error("server process went away; EngineCore exiting")
            os._exit(1)

    def answer_handshake(self, sock, tp_rank, port):
        frames = sock.recv_multipart()
        reply = {
            "engine_id": self.spec["engine_id"], "dp_rank": self.spec["dp_rank"],
            "tp_rank": tp_rank, "port": port, "host": host_ip(),
            "kv_role": self.spec["kv_role"],
        }
        sock.send_multipart([frames[0], msgpack.packb(reply)])

    def publish_request(self, prompt_tokens, seed):
        block_size = self.spec["block_size"]
        blocks = max(1, prompt_tokens // block_size)
        hashes = [(seed * 1000003 + i) & 0x7FFFFFFFFFFFFFFF for i in range(blocks)]
        tokens = [(seed + i) % 32000 for i in range(min(prompt_tokens, blocks * block_size))]
        self.publisher.publish([block_stored(hashes, None, tokens, block_size)])
        self.events_published += 1

    def serve(self, requests):
        poller = zmq.Poller()
        for sock, _, _ in self.handshake_sockets:
            poller.register(sock, zmq.POLLIN)
        replay = self.publisher.replay_socket if self.publisher else None
        if replay is not None:
            poller.register(replay, zmq.POLLIN)
        next_periodic = time.monotonic()
        while True:
            self.exit_if_orphaned()
            for sock, _ in poller.poll(50):
                if sock is replay:
                    self.publisher.serve_replay()
                    continue
                for hs_sock, tp_rank, port in self.handshake_sockets:
                    if hs_sock is sock:
                        self.answer_handshake(hs_sock, tp_rank, port)
            drained = 0
            while drained < 1024:
                try:
                    kind, prompt_tokens, seed = requests.get_nowait()
                except queue.Empty:
                    break
                drained += 1
                if kind == "stop":
                    return
                if self.publisher is not None:
                    self.publish_request(prompt_tokens, seed)
            if self.publisher is not None and time.monotonic() >= next_periodic:
                next_periodic = time.monotonic() + PERIODIC_EVENT_SECONDS
                self.publish_request(self.spec["block_size"], self.events_published + 1)


def engine_core_main(spec, ready_conn, requests):
    """multiprocessing target. Exit codes: 0 stopped, 1 failed (traceback logged)."""
    log = setup_logging(f"atom.EngineCore_DP{spec['dp_rank']}")
    log.info("EngineCore dp_rank=%d/%d pp_rank=%d tp=%d pid=%d starting", spec["dp_rank"],
             spec["dp_size"], spec["pp_rank"], spec["tp_size"], os.getpid())
    core = EngineCore(spec, log)
    try:
        core.init_distributed()
        core.load_model()
        core.init_kv_transfer()
        core.init_kv_events()
    except Exception as exc:  # noqa: BLE001 - any startup failure kills the rank, as in ATOM
        log.error("EngineCore dp_rank=%d failed to start: %s: %s\n%s", spec["dp_rank"],
                  type(exc).__module__ + "." + type(exc).__name__, exc, traceback.format_exc())
        sys.stderr.flush()
        os._exit(1)
    ready_conn.send(("ready", spec["dp_rank"]))
    ready_conn.close()
    log.info("EngineCore dp_rank=%d ready", spec["dp_rank"])
    core.serve(requests)
    return 0

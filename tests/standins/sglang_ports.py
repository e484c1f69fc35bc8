"""The SGLang stand-in's port rules: the ports the main process derives and holds, SGLang's
wait-for-a-free-port, and the TCPStore stand-in's answer (part of sglang_server.py's stand-in).

Sources (read, not copied): sgl-project/sglang python/sglang/srt/server_args.py @ 001067ff
(PortArgs, ZMQ_TCP_PORT_DELTA, DP_ATTENTION_HANDSHAKE_PORT_DELTA, the 30 s wait_port_available),
python/sglang/srt/managers/data_parallel_controller.py (_broadcast_worker_ports: the handshake
REP on +13), SGLang's _resolve_dist_init_method (where the TCPStore listens) and
_sync_bootstrap_port_across_nodes (world rank 0's bootstrap port, broadcast to the followers).

Listeners (core/plan/sglang.cpp reserves and audits exactly these):
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
  broadcasts world rank 0's bootstrap port; their own flag does not matter). See sglang_bootstrap.py.
- ``--kv-events-config`` with publisher zmq: one publisher per attention-DP group on
  ``base + attn_dp_rank`` (without DP attention only DP rank 0 publishes), bound when the endpoint
  has ``*`` or ``::`` (else connected), framing [topic, seq, payload] (kv_events.py, offset mode).
  See sglang_scheduler.py.
- Not bound by the stand-in, although the real one binds them on kernel-chosen ports (get_free_port
  / bind_to_random_port / port 0, so an audit of a real node must ignore the ephemeral range): the
  random ``--nccl-port`` when it is not given, the per-rank TCPStore of DP ranks >= 1 without DP
  attention, the DP-attention per-rank scheduler inputs, the KV manager's ZMQ PULL and MoRI's
  IOEngine per rank. Leaving them out keeps every listening port of the lab deterministic.
"""

import json
import logging
import socket
import time

from standin_common import bind_listener, env_float

log = logging.getLogger("sglang")


ZMQ_TCP_PORT_DELTA = 233                # server_args.py @ 001067ff
DP_ATTENTION_HANDSHAKE_PORT_DELTA = 13  # data_parallel_controller._broadcast_worker_ports
DERIVED_PORT_NAMES = ("dist_init_port", "port_base", "detokenizer_port", "rpc_port",
                      "metrics_ipc_port", "scheduler_input_port", "load_collector_port")


class StartupError(Exception):
    """A failure SGLang reports with a traceback and exit status 1."""


def split_host_port(addr):
    host, _, port = addr.rpartition(":")
    return host.strip("[]"), int(port)


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
    """Under DP attention: the ZMQ block and the handshake port (PortArgs, server_args.py @ 001067ff)."""
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

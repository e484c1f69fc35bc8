"""Helpers shared by the stand-in programs (ATOM server, AToMesh, benchmark client).

Only the Debian packages listed in scripts/install-deps.sh are used: aiohttp 3.8, pyzmq,
msgpack, PyYAML, uvloop. Nothing here imports the real ATOM.
"""

import asyncio
import errno
import json
import logging
import os
import socket
import sys

import aiohttp
from aiohttp import web

LOG_FORMAT = "%(levelname)s %(asctime)s [%(name)s] %(message)s"


def setup_logging(name):
    """A logger that writes to stderr with a prefix like ATOM's ("INFO 2026-.. [atom] ...").

    Line-buffered so a test or srt-helper tailing the log sees the last line before a crash.
    """
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT, stream=sys.stderr, force=True)
    try:
        sys.stderr.reconfigure(line_buffering=True)
        sys.stdout.reconfigure(line_buffering=True)
    except AttributeError:
        pass
    return logging.getLogger(name)


def run_serving(main):
    """asyncio.run on uvloop when it is installed, as the real servers run: ATOM serves through
    uvicorn, whose default loop ("auto") is uvloop when installed, and AToMesh is Rust (hyper),
    far cheaper per request than any Python loop. On the lab's two cores the stand-ins' own CPU
    cost must stay small next to the timing model's (timing_model.py), or it is what a run
    measures. benchmark_serving.py keeps plain asyncio, as InferenceX runs it."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return asyncio.run(main)


def raise_nofile_limit(target=65535):
    """Raise the soft open-file limit toward target, as ATOM's set_ulimit() does before it
    starts: c2048 needs a few thousand sockets per process."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    desired = target if hard == resource.RLIM_INFINITY else min(target, hard)
    if soft < desired:
        resource.setrlimit(resource.RLIMIT_NOFILE, (desired, hard))


def env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def env_float(name, default):
    value = os.environ.get(name, "")
    return float(value) if value.strip() else default


def bind_listener(host, port):
    """Bind and listen on host:port the way torch's TCPStore / uvicorn do.

    No SO_REUSEPORT (so a second binder fails exactly like the real programs); SO_REUSEADDR
    only, as both libuv and CPython servers set it. Raises OSError(EADDRINUSE) with the
    usual "[Errno 98] Address already in use" text on a collision.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def is_addr_in_use(exc):
    """True for both socket errors and zmq.ZMQError carrying EADDRINUSE."""
    return getattr(exc, "errno", None) == errno.EADDRINUSE


def offset_endpoint(endpoint, rank):
    """Per-DP-rank endpoint: vLLM's ZmqEventPublisher.offset_endpoint_port rule, extended to
    ipc:// as ATOM PR #1316 does ("_dp{rank}" suffix). Rank 0 keeps the endpoint unchanged.
    """
    if not endpoint or rank == 0:
        return endpoint
    if "inproc" in endpoint or endpoint.startswith("ipc://"):
        return f"{endpoint}_dp{rank}"
    if "tcp" in endpoint and ":" in endpoint:
        head, _, port = endpoint.rpartition(":")
        return f"{head}:{int(port) + rank}"
    raise ValueError(f"Invalid endpoint: {endpoint}. Must be tcp://, ipc:// or inproc://")


def host_ip():
    """ATOM_HOST_IP if set (what srt-spank exports), else the default-route address, as
    ATOM's get_ip() does; 127.0.0.1 when there is no route (a lab namespace)."""
    explicit = os.environ.get("ATOM_HOST_IP", "").strip()
    if explicit:
        return explicit
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("8.8.8.8", 80))
            return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"


# ---------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------

def json_error(status, message, err_type="invalid_request_error"):
    """OpenAI-style error body, as ATOM's FastAPI handlers produce."""
    return web.json_response(
        {"error": {"message": message, "type": err_type, "code": status}}, status=status)


def sse_frame(obj):
    """One server-sent event: 'data: <json>\\n\\n' (ATOM's sse.data_frame)."""
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


SSE_DONE = b"data: [DONE]\n\n"


async def start_sse(request):
    response = web.StreamResponse(
        status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    return response


def client_session(total_timeout=None):
    """One shared aiohttp session with the connection limit off.

    aiohttp's default connector caps a session at 100 connections, which would silently
    serialise c2048 through a router; the real AToMesh (hyper) and benchmark_serving.py
    (one session per request) have no such cap.
    """
    connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=total_timeout)
    return aiohttp.ClientSession(connector=connector, timeout=timeout)


async def run_app(app, host, port, log, banner="Uvicorn running on http://{host}:{port}"):
    """Bind an aiohttp app (a large backlog for c2048 bursts) and log a uvicorn-like banner.

    Returns the runner so the caller can clean it up. A bind failure raises OSError 98.
    """
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host=host, port=port, backlog=4096, reuse_address=True)
    await site.start()
    log.info(banner.format(host=host, port=port) + " (Press CTRL+C to quit)")
    return runner

#!/usr/bin/python3
"""Stand-in for ``python -m atom.entrypoints.openai_server`` (ROCm/ATOM at ffdf3bb).

Process model, as ATOM's CoreManager (engine_core_mgr.py): one server process; it spawns one
EngineCore process per DP rank (``tp x dp`` ranks of TP=1 under --enable-dp-attention,
``dp x pp`` engines of TP=tp otherwise), each inheriting the server's environment and a copy
of its config. The ranks bind what ATOM binds (see atom_engine_core.py). The server waits for
every rank to be built, then binds the HTTP port (uvicorn starts last in ATOM, so /health
answering means the engine is up). A rank that dies kills the server with exit status 1.

Stand-in knobs (environment): SRT_STANDIN_LOAD_SECONDS (0), the timing model's
(timing_model.py: SRT_STANDIN_TOKEN_MS, _SEQ_US, _PREFILL_MS, _PREFILL_US_PER_TOKEN,
_KV_BYTES_PER_TOKEN, _KV_GBPS), SRT_STANDIN_EOS_AFTER (unset: only max_tokens ends a request),
SRT_STANDIN_KV_BEHAVIOUR (verbatim|offset|connect), SRT_STANDIN_HANDSHAKE_TIMEOUT_S (5),
SRT_STANDIN_ATOM_VERSION / SRT_STANDIN_ATOM_COMMIT (see pkg/atom/_version.py),
SRT_STANDIN_ESCAPE_SECONDS (0: off; else a detached helper that leaves the step, see escape.py),
SRT_STANDIN_HANG_AFTER_REQUESTS=N (after N completion requests, every further one hangs: no
answer, the socket held open, /health and /metrics still fine: a wedged engine) with
SRT_STANDIN_HANG_MARKER=PATH (hang only if PATH does not exist, and create it when the hang
starts: a transient fault that a rerun does not meet), SRT_STANDIN_CRASH_AFTER_REQUESTS=N (the
request after the Nth kills EngineCore DP rank 0, and the server shuts down with exit status 1
as it does when a rank dies: an engine that crashes mid-sweep) with SRT_STANDIN_CRASH_MARKER=PATH
(crash only if PATH does not exist, creating it: the relaunched worker, which has the same
environment, does not crash again), SRT_STANDIN_WEDGED_DP_RANK=R (DP rank R
answers no completion, whether the load balancer or a "data_parallel_rank" sent it there, while
the server's /health and every other rank stay fine: a wedged rank).

/metrics is ATOM's (atom/entrypoints/openai/metrics.py): unlabelled ``atom:*`` gauges and
counters from a snapshot the server refreshes every 5 s (_METRICS_REFRESH_INTERVAL_SECONDS), so a
counter lags the requests by up to 5 s, as ATOM's does.
"""

import asyncio
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import time
import uuid

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import msgpack  # noqa: E402
import zmq  # noqa: E402
import zmq.asyncio  # noqa: E402
from aiohttp import web  # noqa: E402

import atom_cli  # noqa: E402
from atom_engine_core import engine_core_main, handshake_port_for  # noqa: E402
from escape import start_escapee  # noqa: E402
from standin_faults import Faults  # noqa: E402
from timing_model import Queue, TimingModel  # noqa: E402
from standin_common import (SSE_DONE, env_float, env_int, host_ip, json_error,  # noqa: E402
                            raise_nofile_limit, run_app, run_serving, setup_logging, sse_frame,
                            start_sse)

log = setup_logging("atom")


def standin_version():
    """The stand-in atom package's version (pkg/atom/_version.py), if it is importable."""
    try:
        from atom._version import __version__
        return __version__
    except ImportError:
        return "unknown (stand-in run without pkg/ on PYTHONPATH)"


# ---------------------------------------------------------------------------------------
# Engine (the ranks)
# ---------------------------------------------------------------------------------------

class RankHandle:
    def __init__(self, dp_rank, process, requests, ready, engine_id=""):
        self.dp_rank = dp_rank
        self.engine_id = engine_id    # what the rank's side channel answers a handshake with
        # mooncake_connector.py:301,430: the remote_port a prefill hands out is a number the
        # kernel chose and nothing listens on; a decode that dials it instead of computing the
        # side channel's port from remote_handshake_port fails, as it would against ATOM.
        self.remote_port = unbound_port()
        self.process = process
        self.requests = requests
        self.ready = ready
        self.in_flight = 0
        self.decoding = 0             # sequences in this rank's decode batch (timing_model)
        self.prefill_queue = Queue()  # this rank's prefills, one at a time (timing_model)


class Engine:
    """The CoreManager's view: how many ranks, what they report, which one takes a request."""

    def __init__(self, args, kv_cfg):
        self.args = args
        self.kv_cfg = kv_cfg
        tp, dp, pp = args.tensor_parallel_size, args.data_parallel_size, args.pipeline_parallel_size
        if args.enable_dp_attention:
            # engine_core_mgr: PP + DPA is refused; T*dp ranks of TP=1, and the shared config
            # is rewritten (tensor_parallel_size=1, data_parallel_size=T*dp), which is what
            # /kv_transfer_info and /server_info then report.
            assert pp == 1, "Pipeline parallel + DP-attention is not supported yet"
            self.engine_count, self.tp_size, self.dp_size, self.pp_size = tp * dp, 1, tp * dp, 1
        else:
            assert not (pp > 1 and dp > 1), \
                "Pipeline parallel combined with data parallel is not supported yet."
            self.engine_count, self.tp_size, self.dp_size, self.pp_size = dp * pp, tp, dp, pp
        self.kv_role, self.handshake_port = resolve_kv_transfer_role(kv_cfg)
        self.ranks = []
        self._rr = 0

    def rank_spec(self, engine_index):
        args = self.args
        dp_rank, pp_rank = divmod(engine_index, self.pp_size)
        env = os.environ
        base = env.get("ATOM_DP_BASE_PORT", "").strip()
        return {
            "model": args.model, "engine_id": str(uuid.uuid4()),
            "dp_rank": dp_rank, "pp_rank": pp_rank, "global_rank": engine_index * self.tp_size,
            "dp_size": self.dp_size, "tp_size": self.tp_size, "pp_size": self.pp_size,
            "master_port": args.port,
            "dp_master_ip": env.get("ATOM_DP_MASTER_IP", "127.0.0.1"),
            "dp_master_port": int(env.get("ATOM_DP_MASTER_PORT", "") or
                                  atom_cli.DEFAULT_DP_MASTER_PORT),
            # Unset in ATOM means a random free port picked at import (get_open_port); the
            # stand-in binds nothing then, so every listening port stays deterministic.
            "dp_base_port": int(base) if base else None,
            "kv_role": self.kv_role, "handshake_port": self.handshake_port, "kv_cfg": self.kv_cfg,
            "block_size": args.block_size,
            "load_seconds": env_float("SRT_STANDIN_LOAD_SECONDS", 0.0),
        }

    def start(self):
        ctx = multiprocessing.get_context("spawn")  # ATOM forces spawn (torch.multiprocessing)
        for index in range(self.engine_count):
            spec = self.rank_spec(index)
            log.info("Engine Core Mgr: Creating EngineCore engine %d (dp=%d, pp=%d) of %d",
                     index, spec["dp_rank"], spec["pp_rank"], self.engine_count)
            ready_recv, ready_send = ctx.Pipe(duplex=False)
            requests = ctx.Queue()
            proc = ctx.Process(target=engine_core_main, args=(spec, ready_send, requests),
                               name=f"EngineCore_DP{spec['dp_rank']}", daemon=False)
            proc.start()
            ready_send.close()
            self.ranks.append(RankHandle(spec["dp_rank"], proc, requests, ready_recv, spec["engine_id"]))

    def wait_ready(self):
        """Block until every rank reports ready; a rank that dies first fails the server."""
        pending = {r.ready: r for r in self.ranks}
        while pending:
            waitables = list(pending) + [r.process.sentinel for r in pending.values()]
            for obj in multiprocessing.connection.wait(waitables, timeout=0.5):
                rank = pending.get(obj)
                if rank is not None:
                    try:
                        obj.recv()
                        del pending[obj]
                        continue
                    except EOFError:
                        pass
                dead = self.dead_rank()
                if dead is not None:
                    return dead
        log.info("Engine Core Mgr: all %d EngineCore(s) ready", len(self.ranks))
        return None

    def dead_rank(self):
        for rank in self.ranks:
            if rank.process.exitcode is not None:
                return rank
        return None

    def stop(self, grace=3.0):
        for rank in self.ranks:
            if rank.process.is_alive():
                rank.process.terminate()
        deadline = time.monotonic() + grace
        for rank in self.ranks:
            rank.process.join(max(0.0, deadline - time.monotonic()))
            if rank.process.is_alive():
                rank.process.kill()
                rank.process.join(1.0)

    def pick_rank(self, requested):
        if isinstance(requested, int) and 0 <= requested < len(self.ranks):
            return self.ranks[requested]  # atomesh --dp-aware pins the rank
        if self.args.dp_load_balance == "round_robin":
            self._rr = (self._rr + 1) % len(self.ranks)
            return self.ranks[self._rr]
        return min(self.ranks, key=lambda r: r.in_flight)


def resolve_kv_transfer_role(kv_cfg):
    """api_server._resolve_kv_transfer_role: the role and base handshake port (default 6301),
    looking inside a "multi" connector for the producer."""
    role = kv_cfg.get("kv_role")
    port = kv_cfg.get("handshake_port", atom_cli.DEFAULT_HANDSHAKE_PORT)
    if role is not None or kv_cfg.get("kv_connector") != "multi":
        return role, port
    fallback = (None, port)
    for sub in kv_cfg.get("connectors", []):
        sub_role = sub.get("kv_role")
        if sub_role is None:
            continue
        if fallback[0] is None:
            fallback = (sub_role, sub.get("handshake_port", port))
        if sub_role == "kv_producer":
            return sub_role, sub.get("handshake_port", port)
    return fallback


# ---------------------------------------------------------------------------------------
# Mooncake handshake (decode side)
# ---------------------------------------------------------------------------------------

def unbound_port():
    """A port number the kernel handed out and nothing listens on any more."""
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def side_channels(kv_in, tp_size):
    """mooncake_connector.py:1005-1013: a decode rank ignores remote_port and dials, for each of
    its TP ranks, remote_handshake_port + offset(remote_dp_rank, tp_rank, remote_tp_size,
    remote_pp_size, remote_dp_size) on remote_host (port_offset.py; pp stage 0). The router must
    carry the prefill's DP rank and sizes for this to reach the rank that holds the KV."""
    base = int(kv_in["remote_handshake_port"])
    dp_rank = int(kv_in.get("remote_dp_rank", 0) or 0)
    remote_tp = int(kv_in.get("remote_tp_size", 1) or 1)
    remote_dp = int(kv_in.get("remote_dp_size", 1) or 1)
    host = kv_in["remote_host"]
    return [(host, handshake_port_for(base, 0, dp_rank, tp_rank % remote_tp, remote_dp, remote_tp))
            for tp_rank in range(tp_size)]


class HandshakeCache:
    """The decode connector's per-remote-rank handshake over ZMQ (cached, like Mooncake's
    per-engine metadata). It is what proves the prefill's side channel is reachable at
    remote_host:remote_port; a wrong ATOM_HOST_IP or a firewalled block fails here."""

    def __init__(self):
        self._ctx = zmq.asyncio.Context()
        self._done = {}
        self._timeout = env_float("SRT_STANDIN_HANDSHAKE_TIMEOUT_S", 5.0)

    async def ensure(self, host, port, engine_id=None):
        """The side channel's reply; with `engine_id`, the channel must be that engine's: the
        KV a request names lives on one prefill rank, and Mooncake fetches it by that rank's
        segment, so a channel of another rank (a router that lost remote_dp_rank, a port block
        off by one) is a failed transfer, not a quiet success."""
        reply = await self._handshake(host, port)
        if engine_id is not None and reply.get("engine_id") != engine_id:
            raise RuntimeError(
                f"Mooncake handshake with {host}:{port}: that side channel is engine "
                f"{reply.get('engine_id')} (dp_rank {reply.get('dp_rank')}, tp_rank "
                f"{reply.get('tp_rank')}), the request's KV is on engine {engine_id}: "
                "remote_dp_rank/remote_tp_size from the router do not match the prefill's ranks")
        return reply

    async def _handshake(self, host, port):
        key = (host, port)
        if key in self._done:
            return await asyncio.shield(self._done[key])
        fut = asyncio.get_running_loop().create_future()
        self._done[key] = fut
        sock = self._ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        try:
            sock.connect(f"tcp://{host}:{port}")
            await sock.send_multipart([b"handshake", msgpack.packb({"role": "kv_consumer"})])
            frames = await asyncio.wait_for(sock.recv_multipart(), self._timeout)
            reply = msgpack.unpackb(frames[-1])
            log.info("Mooncake handshake with %s:%d: engine %s dp_rank %s tp_rank %s", host, port,
                     reply.get("engine_id"), reply.get("dp_rank"), reply.get("tp_rank"))
            fut.set_result(reply)
        except Exception as exc:  # noqa: BLE001
            del self._done[key]
            err = RuntimeError(f"Mooncake handshake with {host}:{port} failed: "
                               f"{type(exc).__name__} {exc}")
            fut.set_exception(err)
            fut.exception()  # mark retrieved
            raise err from None
        finally:
            sock.close(0)
        return fut.result()


# ---------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------

class Server(Faults):
    def __init__(self, args, engine):
        self.args = args
        self.engine = engine
        self.model_name = args.served_model_name or args.model
        self.timing = TimingModel(protocol=str(engine.kv_cfg.get("protocol", "rdma")))
        self.eos_after = env_int("SRT_STANDIN_EOS_AFTER", 0)
        self.handshakes = HandshakeCache()
        self.prompt_tokens_total = 0
        self.generation_tokens_total = 0
        self.requests_total = 0
        self.requests_finished = 0
        self.host_ip = host_ip()
        self.metrics_snapshot = None  # (taken at, values): refreshed every 5 s, as ATOM's
        self.init_faults(log)
        wedged = os.environ.get("SRT_STANDIN_WEDGED_DP_RANK", "")
        self.wedged_rank = int(wedged) if wedged.strip().isdigit() else None
        self.wedged_logged = False

    async def hang_if_rank_wedged(self, rank):
        """SRT_STANDIN_WEDGED_DP_RANK: a request on that rank is never answered."""
        if self.wedged_rank is None or rank.dp_rank != self.wedged_rank:
            return
        if not self.wedged_logged:
            self.wedged_logged = True
            log.warning("stand-in: DP rank %d is wedged (SRT_STANDIN_WEDGED_DP_RANK): its requests "
                        "get no answer", rank.dp_rank)
        await asyncio.Event().wait()

    def app(self):
        app = web.Application(client_max_size=512 * 1024 * 1024)
        app.router.add_get("/health", self.health)
        app.router.add_get("/v1/models", self.models)
        app.router.add_post("/v1/completions", self.completions)
        app.router.add_post("/v1/chat/completions", self.chat_completions)
        app.router.add_get("/kv_transfer_info", self.kv_transfer_info)
        app.router.add_get("/server_info", self.server_info)
        app.router.add_route("*", "/metrics", self.metrics)
        return app

    async def health(self, _request):
        return web.json_response({"status": "ok"})

    async def models(self, _request):
        return web.json_response({"object": "list", "data": [{
            "id": self.model_name, "object": "model", "created": int(time.time()),
            "owned_by": "atom"}]})

    async def kv_transfer_info(self, _request):
        return web.json_response({
            "tp_size": self.engine.tp_size, "dp_size": self.engine.dp_size,
            "kv_role": self.engine.kv_role, "handshake_port": self.engine.handshake_port})

    async def server_info(self, _request):
        return web.json_response({
            "model_id": self.model_name, "served_model_name": self.model_name,
            "tp_size": self.engine.tp_size, "dp_size": self.engine.dp_size})

    METRICS_REFRESH_SECONDS = 5.0  # api_server._METRICS_REFRESH_INTERVAL_SECONDS

    async def metrics(self, _request):
        now = time.monotonic()
        if self.metrics_snapshot is None or now - self.metrics_snapshot[0] >= self.METRICS_REFRESH_SECONDS:
            running = sum(r.in_flight for r in self.engine.ranks)
            self.metrics_snapshot = (now, {
                "requests_running": running, "requests_waiting": 0,
                "requests_finished": self.requests_finished,
                "prompt_tokens": self.prompt_tokens_total,
                "generation_tokens": self.generation_tokens_total, "preemptions": 0})
        snap = self.metrics_snapshot[1]
        lines = ["# HELP atom:metrics_snapshot_available Whether a runtime metrics snapshot has been "
                 "collected successfully.",
                 "# TYPE atom:metrics_snapshot_available gauge", "atom:metrics_snapshot_available 1.0"]
        for name, key in (("atom:requests_running", "requests_running"),
                          ("atom:requests_waiting", "requests_waiting")):
            lines += [f"# TYPE {name} gauge", f"{name} {float(snap[key])}"]
        for name, key in (("atom:requests_finished", "requests_finished"),
                          ("atom:prompt_tokens", "prompt_tokens"),
                          ("atom:generation_tokens", "generation_tokens"),
                          ("atom:preemptions", "preemptions")):
            # prometheus_client's CounterMetricFamily: TYPE names the family, the sample has _total
            lines += [f"# TYPE {name} counter", f"{name}_total {float(snap[key])}"]
        return web.Response(text="\n".join(lines) + "\n",
                            content_type="text/plain", charset="utf-8")

    def crash_if_due(self):
        """SRT_STANDIN_CRASH_AFTER_REQUESTS (standin_faults.py): EngineCore DP rank 0 dies; serve()
        then sees the dead rank and shuts the server down with exit status 1, ATOM's
        EngineCore-died path."""
        self.crash_now(self.engine.ranks[0].process.pid, "EngineCore DP rank 0")

    # -- completions ---------------------------------------------------------------------
    async def read_body(self, request):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, web.json_response({"detail": "JSON decode error"}, status=422)
        if not isinstance(body, dict):
            return None, web.json_response({"detail": "body must be an object"}, status=422)
        model = body.get("model")
        if model is not None and str(model).rstrip("/") != self.model_name.rstrip("/"):
            return None, web.json_response({"detail": (
                f"Requested model '{model}' does not match server model "
                f"'{self.model_name}'")}, status=400)
        return body, None

    async def completions(self, request):
        body, error = await self.read_body(request)
        if error is not None:
            return error
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            return web.json_response({"detail": [{"loc": ["body", "prompt"],
                                                  "msg": "Input should be a valid string",
                                                  "type": "string_type"}]}, status=422)
        return await self.generate(request, body, prompt, "text_completion", "cmpl")

    async def chat_completions(self, request):
        body, error = await self.read_body(request)
        if error is not None:
            return error
        messages = body.get("messages")
        if not isinstance(messages, list):
            return web.json_response({"detail": "messages required"}, status=422)
        prompt = " ".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        return await self.generate(request, body, prompt, "chat.completion", "chatcmpl")

    def output_budget(self, body):
        limit = body.get("max_completion_tokens")
        if limit is None:
            limit = body.get("max_tokens")
        limit = 8192 if limit is None else int(limit)  # protocol.DEFAULT_MAX_TOKENS
        if self.eos_after and not body.get("ignore_eos"):
            if self.eos_after < limit:
                return self.eos_after, "stop"
        return limit, "length"

    async def generate(self, request, body, prompt, obj, id_prefix):
        engine = self.engine
        kv_in = body.get("kv_transfer_params") or {}
        if kv_in.get("do_remote_prefill") and engine.kv_role == "kv_consumer":
            try:
                for host, port in side_channels(kv_in, engine.tp_size):
                    await self.handshakes.ensure(host, port, kv_in.get("remote_engine_id"))
            except (RuntimeError, TypeError, ValueError, KeyError) as exc:
                log.error("KV transfer for request failed: %s", exc)
                return json_error(500, str(exc), "internal_server_error")

        rank = engine.pick_rank(body.get("data_parallel_rank"))
        request_id = f"{id_prefix}-{uuid.uuid4().hex}"
        prompt_tokens = len(prompt.split())
        n_tokens, finish = self.output_budget(body)
        rank.in_flight += 1
        self.requests_total += 1
        self.prompt_tokens_total += prompt_tokens
        try:
            rank.requests.put_nowait(("req", prompt_tokens, self.requests_total))
        except Exception:  # noqa: BLE001 - KV events are advisory
            pass
        self.crash_if_due()
        try:
            await self.hang_if_wedged()
            await self.hang_if_rank_wedged(rank)
            if body.get("stream"):
                answer = await self.stream(request, request_id, obj, rank, prompt_tokens,
                                           n_tokens, finish, kv_in)
            else:
                answer = await self.complete(request_id, obj, rank, prompt_tokens, n_tokens,
                                             finish, kv_in)
            self.requests_finished += 1  # the scheduler's total_finished_requests
            return answer
        finally:
            rank.in_flight -= 1

    def choice(self, obj, text, finish):
        if obj == "chat.completion":
            return {"index": 0, "delta": {"content": text}, "finish_reason": finish}
        return {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}

    async def first_token(self, rank, prompt_tokens, kv_in):
        """The first token: a decode server with remote KV waits for the transfer, any other
        server prefills the prompt on the rank (timing_model)."""
        if kv_in.get("do_remote_prefill") and self.engine.kv_role == "kv_consumer":
            await self.timing.kv_transfer(prompt_tokens)
        else:
            await self.timing.prefill(rank.prefill_queue, prompt_tokens)

    async def stream(self, request, request_id, obj, rank, prompt_tokens, n_tokens, finish, kv_in):
        chunk_obj = obj + ".chunk" if obj == "chat.completion" else obj
        response = await start_sse(request)
        base = {"id": request_id, "object": chunk_obj, "model": self.model_name}
        await self.first_token(rank, prompt_tokens, kv_in)
        rank.decoding += 1
        try:
            for i in range(n_tokens):
                if i:
                    await self.timing.decode_step(rank.decoding)
                await self.stream_token(response, base, obj, i, n_tokens, prompt_tokens, finish)
        finally:
            rank.decoding -= 1
        if n_tokens == 0:
            await response.write(SSE_DONE)
        await response.write_eof()
        return response

    async def stream_token(self, response, base, obj, i, n_tokens, prompt_tokens, finish):
        last = i == n_tokens - 1
        chunk = dict(base, created=int(time.time()),
                     choices=[self.choice(obj, " tok", finish if last else None)])
        self.generation_tokens_total += 1
        if not last:
            await response.write(sse_frame(chunk))
            return
        # ATOM coalesces content + stop + usage + [DONE] into one send at the end.
        stop = dict(base, created=int(time.time()), choices=[self.choice(obj, "", "stop")])
        usage = dict(base, created=int(time.time()), choices=[], usage={
            "prompt_tokens": prompt_tokens, "completion_tokens": n_tokens,
            "total_tokens": prompt_tokens + n_tokens})
        await response.write(sse_frame(chunk) + sse_frame(stop) + sse_frame(usage) + SSE_DONE)

    async def complete(self, request_id, obj, rank, prompt_tokens, n_tokens, finish, kv_in):
        started = time.time()
        await self.first_token(rank, prompt_tokens, kv_in)
        ttft = time.time() - started
        rank.decoding += 1
        try:
            for _ in range(max(0, n_tokens - 1)):
                await self.timing.decode_step(rank.decoding)
        finally:
            rank.decoding -= 1
        self.generation_tokens_total += n_tokens
        text = " tok" * n_tokens
        choice = ({"index": 0, "message": {"role": "assistant", "content": text},
                   "finish_reason": finish} if obj == "chat.completion"
                  else {"index": 0, "text": text, "finish_reason": finish})
        latency = time.time() - started
        body = {"id": request_id, "object": obj, "created": int(started),
                "model": self.model_name, "choices": [choice],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n_tokens,
                          "total_tokens": prompt_tokens + n_tokens,
                          "ttft_s": round(ttft, 4),
                          "tpot_s": round((latency - ttft) / (n_tokens - 1), 4) if n_tokens > 1
                          else 0.0,
                          "latency_s": round(latency, 4)}}
        if kv_in.get("do_remote_decode") and self.engine.kv_role == "kv_producer":
            body["kv_transfer_params"] = self.kv_params_out(rank, prompt_tokens)
        return web.json_response(body)

    def kv_params_out(self, rank, prompt_tokens):
        """mooncake_connector.request_finished: what decode needs to pull the KV blocks."""
        engine = self.engine
        blocks = max(1, (prompt_tokens + self.args.block_size - 1) // self.args.block_size)
        return {
            "do_remote_prefill": True, "do_remote_decode": False,
            "remote_block_ids": list(range(blocks)), "remote_swa_block_ids": [],
            "remote_engine_id": rank.engine_id,
            "remote_host": self.host_ip,
            "remote_port": rank.remote_port,
            "remote_handshake_port": engine.handshake_port,
            "tp_size": engine.tp_size, "dp_rank": rank.dp_rank, "remote_pp_size": 1,
            "transfer_id": self.requests_total, "first_token_id": 1, "draft_token_ids": [],
            "local_slot_index": -1, "prefix_cache_hit_tokens": 0,
        }


# ---------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------

async def serve(args, engine):
    server = Server(args, engine)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    log.info("Starting server on %s:%d", args.host, args.server_port)
    try:
        runner = await run_app(server.app(), args.host, args.server_port, log)
    except OSError as exc:
        # uvicorn's wording, and its STARTUP_FAILURE exit status 3.
        log.error("[Errno %s] error while attempting to bind on address ('%s', %d): %s",
                  exc.errno, args.host, args.server_port,
                  (exc.strerror or str(exc)).lower())
        return 3
    log.info("Server started successfully and ready to accept requests")
    failed = None
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), 0.25)
        except asyncio.TimeoutError:
            pass
        failed = engine.dead_rank()
        if failed is not None:
            # srun and timeout signal the whole process group: a rank killed by the same
            # SIGTERM as the server is a shutdown, not a failure.
            try:
                await asyncio.wait_for(stop.wait(), 0.3)
            except asyncio.TimeoutError:
                pass
            if stop.is_set():
                failed = None
                break
            log.error("EngineCore DP rank %d (pid %d) died with exit code %s; shutting down",
                      failed.dp_rank, failed.process.pid, failed.process.exitcode)
            break
    await runner.cleanup()
    return 1 if failed is not None else 0


def main(argv=None):
    if os.environ.get("USE_ATOMESH_ENTRYPOINTS", "0") not in ("", "0"):
        # Real ATOM would run the AToMesh standalone server here, where --port is the HTTP
        # port. Workers must never see this variable; fail loudly instead of imitating it.
        log.error("USE_ATOMESH_ENTRYPOINTS is set: the stand-in implements only the classic "
                  "server (workers must have it unset)")
        return 3
    args = atom_cli.parse_args(argv)
    raise_nofile_limit()
    log.info("ATOM version %s", standin_version())
    start_escapee(log)  # before any thread or rank exists: fork() is safe here
    kv_cfg = json.loads(args.kv_transfer_config)  # a bad JSON is a traceback, as in ATOM
    engine = Engine(args, kv_cfg)
    if args.enable_dp_attention:
        log.info("Enable dp attention, using %d data parallel ranks", engine.engine_count)
    log.info("Initializing engine with model %s...", args.model)

    def on_signal(signum, _frame):
        engine.stop()
        sys.exit(0 if signum == signal.SIGTERM else 130)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    engine.start()
    dead = engine.wait_ready()
    if dead is not None:
        log.error("EngineCore DP rank %d (pid %d) exited with code %s during startup; "
                  "see its traceback above. Shutting down.", dead.dp_rank, dead.process.pid,
                  dead.process.exitcode)
        engine.stop()
        return 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        status = run_serving(serve(args, engine))
    finally:
        engine.stop()
    return status


if __name__ == "__main__":
    sys.exit(main())

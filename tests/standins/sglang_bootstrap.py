"""P/D in the SGLang stand-in: the prefill's KV bootstrap server, the prefill ranks' registration
with it, and the decode side's handshake before it generates (part of sglang_server.py's
stand-in; the Server class mixes Bootstrap in).

Sources (read, not copied): sgl-project/sglang python/sglang/srt/disaggregation/common/conn.py @
0094505d (register_to_bootstrap, the bootstrap server's routes, the decode's GET /route and its
page-size check), python/sglang/srt/managers/disagg_service.py (start_disagg_service: "only start
bootstrap server on prefill tm", an aiohttp thread), SGLang's _sync_bootstrap_port_across_nodes;
the router's side: lightseekorg/smg model_gateway/src/routers/http/pd_router.rs @ 1830a369
(inject_bootstrap_into_value) and pd_types.rs @ 70e0e004 (generate_room_id).

The bootstrap server (prefill, node rank 0) listens on ``--host:--disaggregation-bootstrap-port``:
PUT/GET /route, /health, POST /register_dp_rank, /query_dp_ranks. A bind failure is only logged
("Server error: ...") and the server keeps starting. Each prefill DP leader PUTs /route to H:B
(H = the dist-init host, else --host with 0.0.0.0 read as 127.0.0.1; B = world rank 0's bootstrap
port, which a follower node learns from the leader's store stand-in), 5 tries with back-off, then
only an error in the log.

P/D: a decode request carries bootstrap_host/bootstrap_port/bootstrap_room (a null port means
this server's own --disaggregation-bootstrap-port); before generating, the decode GETs
``/route?prefill_dp_rank=-1`` on the prefill's bootstrap server (503 until every prefill DP rank
registered: retried) within SRT_STANDIN_HANDSHAKE_TIMEOUT_S (5) and checks page size and KV
dtype, else the request fails with HTTP 500. A decode request without bootstrap_host is a 400.
bootstrap_host FAKE_BOOTSTRAP_HOST ("2.2.2.2", disaggregation/utils.py) is SGLang's own warmup
request (warmup.py _make_warmup_req: bootstrap_room 0): no handshake, no transfer, served alone.
The prefill generates one token whatever max_tokens says (SGLang forces max_new_tokens to 1
there; sglang_completions.py).
"""

import asyncio
import logging
import os

FAKE_BOOTSTRAP_HOST = "2.2.2.2"  # sglang/srt/disaggregation/utils.py
import time

import aiohttp
from aiohttp import web

from sglang_ports import leader_bootstrap_port, split_host_port
from standin_common import run_app

log = logging.getLogger("sglang")


class Bootstrap:
    """Server's P/D side (a mixin: uses self.args, self.layout, self.load_balance,
    self.session, self.bootstrap_table, self.bootstrap_ok, self.handshake_timeout)."""

    # -- bootstrap server (prefill, node rank 0) -----------------------------------------
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

    def bootstrap_app(self):
        app = web.Application()
        app.router.add_get("/health", self.bs_health)
        app.router.add_put("/route", self.bs_register)
        app.router.add_get("/route", self.bs_route)
        app.router.add_post("/register_dp_rank", self.bs_register_room)
        app.router.add_post("/query_dp_ranks", self.bs_query_rooms)
        return app

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

    # -- decode side ---------------------------------------------------------------------
    async def bootstrap_handshake(self, body):
        """Decode: reach the prefill's bootstrap server (GET /route) before generating."""
        host = body.get("bootstrap_host")
        if host == FAKE_BOOTSTRAP_HOST:
            return  # a fake transfer: the decode generates without its prefill
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

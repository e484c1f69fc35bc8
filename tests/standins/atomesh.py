#!/usr/bin/python3
"""Stand-in for the AToMesh router (ROCm/ATOM atom/mesh at ffdf3bb): ``atomesh launch ...``.

Faithful points (read in atom/mesh/src/main.rs, cliargs.rs, server.rs, worker_service.rs,
observability/metrics/routes.rs, core/placement/backend/atom.rs):
- ``--version``/``-V`` anywhere prints the version; ``--prefill URL [PORT|none]`` entries are
  pulled out of argv by hand before clap sees the rest; unknown flags are a clap error, exit 2.
- defaults: --host 0.0.0.0, --port 30000, --prometheus-port 29000, --policy cache_aware,
  --backend sglang (so ATOM workers need --backend atom), --worker-startup-timeout-secs 1800,
  --worker-startup-check-interval 30, health checks every 60 s, retries on.
- startup: the metrics listener first, then every worker is polled on its health endpoint
  until healthy or the startup timeout; the router's own HTTP port is bound only after that.
- ``--backend atom``: each prefill's /kv_transfer_info (and /server_info for --dp-aware) is
  read at registration; a request goes to a prefill first (max_tokens=1, stream=false,
  kv_transfer_params do_remote_decode) and the returned kv_transfer_params, enriched with
  remote_dp_size / remote_tp_size / remote_dp_rank, go with the request to a decode whose
  answer (SSE or JSON) is passed through.
- sglang/vllm backends: prefill and decode are sent the request at the same time with
  bootstrap_host/bootstrap_port/bootstrap_room; ATOM ignores those fields, so a forgotten
  --backend atom "works" with the prefill doing a full generation, as with the real router.
- /health and /liveness always 200 "OK"; /readiness 503 until a healthy prefill and decode
  exist; GET /workers = {workers, total, stats:{prefill_count, decode_count, regular_count}}.
- a dead worker: requests to it fail and are retried on another healthy worker of the same
  role (up to --retry-max-retries), else 502; after --health-failure-threshold failed
  checks it is listed with is_healthy=false and skipped; /workers still lists it.

Lab knob (not AToMesh's): SRT_STANDIN_ROUTER_WARMUP_503_SECONDS=K answers every completion 503
for K seconds after the router's HTTP port is bound, while /workers already lists every worker:
a router that is up but not yet warm, as InferenceX's runs have met.
"""

import argparse
import asyncio
import hashlib
import json
import os
import random
import signal
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402

from standin_common import (client_session, raise_nofile_limit, run_app, run_serving,  # noqa: E402
                            setup_logging)

log = setup_logging("atomesh")

VERSION = os.environ.get("SRT_STANDIN_ATOMESH_VERSION", "0.1.0")
# Tests only: a deliberate router bug ("drop-remote-dp-rank"), so the lab proves it would fail.
MUTATION = os.environ.get("SRT_STANDIN_ATOMESH_MUTATION", "")
WARMUP_503_SECONDS = float(os.environ.get("SRT_STANDIN_ROUTER_WARMUP_503_SECONDS", "0") or 0)
POLICIES = ["random", "round_robin", "dp_sticky", "cache_aware", "power_of_two", "prefix_hash"]


# ---------------------------------------------------------------------------------------
# Command line (clap semantics on argparse)
# ---------------------------------------------------------------------------------------

class ClapParser(argparse.ArgumentParser):
    """argparse with clap's refusal wording and exit status 2, and no abbreviations."""

    def error(self, message):
        sys.stderr.write(f"error: {message}\n\nUsage: atomesh launch [OPTIONS]\n\n"
                         "For more information, try '--help'.\n")
        sys.exit(2)


def split_prefill_args(argv):
    """cliargs.rs parse_prefill_args_from + filter_prefill_args_from."""
    entries, rest, i = [], [], 0
    while i < len(argv):
        if argv[i] == "--prefill" and i + 1 < len(argv):
            url, bootstrap = argv[i + 1], None
            i += 2
            if i < len(argv) and not argv[i].startswith("--"):
                if argv[i].isdigit() and int(argv[i]) < 65536:
                    bootstrap = int(argv[i])
                    i += 1
                elif argv[i].lower() == "none":
                    i += 1
            entries.append((url, bootstrap))
        else:
            rest.append(argv[i])
            i += 1
    return entries, rest


def build_parser():
    p = ClapParser(prog="atomesh", allow_abbrev=False, add_help=True)
    a = p.add_argument
    flag = dict(action="store_true")
    # Worker configuration
    a("--host", default="0.0.0.0")
    a("--port", type=int, default=30000)
    a("--worker-urls", nargs="*", default=[])
    # Routing policy
    a("--policy", default="cache_aware", choices=POLICIES)
    a("--cache-threshold", type=float, default=0.3)
    a("--balance-abs-threshold", type=int, default=64)
    a("--balance-rel-threshold", type=float, default=1.5)
    a("--eviction-interval", type=int, default=120)
    a("--max-tree-size", type=int, default=67108864)
    a("--prefix-token-count", type=int, default=256)
    a("--prefix-hash-load-factor", type=float, default=1.25)
    a("--dp-aware", **flag)
    # PD disaggregation (--prefill is handled by split_prefill_args)
    a("--pd-disaggregation", **flag)
    a("--decode", action="append", default=[])
    a("--prefill-policy", choices=POLICIES, default=None)
    a("--decode-policy", choices=POLICIES, default=None)
    a("--atom-pd-rank-mapping-policy", default="none", choices=["none", "idx2idx"])
    a("--worker-startup-timeout-secs", type=int, default=1800)
    a("--worker-startup-check-interval", type=int, default=30)
    # Logging and metrics
    a("--log-dir", default=None)
    a("--log-level", default="info", choices=["debug", "info", "warn", "error"])
    a("--json-log", **flag)
    a("--prometheus-port", type=int, default=29000)
    a("--prometheus-host", default="0.0.0.0")
    a("--prometheus-duration-buckets", type=float, nargs="*", default=[])
    # Request handling and rate limiting
    a("--request-id-headers", nargs="*", default=[])
    a("--request-timeout-secs", type=int, default=1800)
    a("--shutdown-grace-period-secs", type=int, default=180)
    a("--max-payload-size", type=int, default=536870912)
    a("--max-concurrent-requests", type=int, default=-1)
    a("--queue-size", type=int, default=100)
    a("--queue-timeout-secs", type=int, default=60)
    a("--rate-limit-tokens-per-second", type=int, default=None)
    # Retries and circuit breaker
    a("--retry-max-retries", type=int, default=5)
    a("--retry-initial-backoff-ms", type=int, default=50)
    a("--retry-max-backoff-ms", type=int, default=30000)
    a("--retry-backoff-multiplier", type=float, default=1.5)
    a("--retry-jitter-factor", type=float, default=0.2)
    a("--disable-retries", **flag)
    a("--cb-failure-threshold", type=int, default=10)
    a("--cb-success-threshold", type=int, default=3)
    a("--cb-timeout-duration-secs", type=int, default=60)
    a("--cb-window-duration-secs", type=int, default=120)
    a("--disable-circuit-breaker", **flag)
    # Health checks
    a("--health-failure-threshold", type=int, default=3)
    a("--health-success-threshold", type=int, default=2)
    a("--health-check-timeout-secs", type=int, default=5)
    a("--health-check-interval-secs", type=int, default=60)
    a("--health-check-endpoint", default="/health")
    a("--disable-health-check", **flag)
    # Tokenizer and parsers (gRPC mode only; accepted and unused here)
    a("--model-path", default=None)
    a("--tokenizer-path", default=None)
    a("--chat-template", default=None)
    a("--tokenizer-cache-enable-l0", **flag)
    a("--tokenizer-cache-l0-max-entries", type=int, default=10000)
    a("--tokenizer-cache-enable-l1", **flag)
    a("--tokenizer-cache-l1-max-memory", type=int, default=52428800)
    a("--reasoning-parser", default=None)
    a("--tool-call-parser", default=None)
    # Backend, auth, TLS
    a("--backend", "--runtime", dest="backend", default="sglang",
      choices=["sglang", "vllm", "atom"])
    a("--api-key", default=None)
    a("--tls-cert-path", default=None)
    a("--tls-key-path", default=None)
    return p


def parse_command_line(argv):
    for arg in argv:
        if arg in ("--version", "-V"):
            print(f"atomesh {VERSION}")
            sys.exit(0)
        if arg == "--version-verbose":
            print(f"atomesh {VERSION}\n\nBuild Information:\n  Build Mode: stand-in")
            sys.exit(0)
    prefill, rest = split_prefill_args(argv)
    if rest and rest[0] in ("launch", "start"):
        rest = rest[1:]
    args = build_parser().parse_args(rest)
    if (args.tls_cert_path is None) != (args.tls_key_path is None):
        missing = "tls_key_path" if args.tls_key_path is None else "tls_cert_path"
        print(f"Error: MissingRequired {{ field: \"{missing}\" }}", file=sys.stderr)
        sys.exit(1)
    args.prefill = prefill
    return args


# ---------------------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------------------

class Worker:
    def __init__(self, url, worker_type, base_url, dp_rank=None, bootstrap_port=None):
        self.url = url  # with "@rank" under --dp-aware, as AToMesh's DP-aware workers
        self.base_url = base_url
        self.worker_type = worker_type
        self.dp_rank = dp_rank
        self.bootstrap_port = bootstrap_port
        self.model_id = "unknown"
        self.tp_size = 1
        self.dp_size = None
        self.healthy = True
        self.load = 0
        self.health_failures = 0
        self.health_successes = 0
        self.consecutive_failures = 0
        self.circuit_open_until = 0.0

    def info(self, disable_health_check):
        return {
            "id": self.url, "url": self.url, "model_id": self.model_id, "priority": 50,
            "cost": 1.0, "worker_type": self.worker_type, "is_healthy": self.healthy,
            "load": self.load, "connection_mode": "HTTP", "runtime_type": None,
            "tokenizer_path": None, "reasoning_parser": None, "tool_parser": None,
            "chat_template": None, "bootstrap_port": self.bootstrap_port, "metadata": {},
            "disable_health_check": disable_health_check, "job_status": None,
        }


class Router:
    def __init__(self, args):
        self.args = args
        self.workers = []
        self.session = None
        self._rr = {}
        self.requests_total = 0
        self.request_errors_total = 0
        # AToMesh's HTTP layer metrics (observability/metrics/recorder.rs, middleware.rs): a
        # request counted as it arrives, a response as its headers go out (for a streamed
        # completion: when the first chunk does), by status code and x-mesh-error-code.
        self.http_requests = {}   # (method, path) -> count
        self.http_responses = {}  # (status_code, error_code) -> count

    # -- registration --------------------------------------------------------------------
    async def wait_healthy(self, base_url):
        """Poll the health endpoint until 200 or --worker-startup-timeout-secs."""
        deadline = time.monotonic() + self.args.worker_startup_timeout_secs
        url = base_url + self.args.health_check_endpoint
        while True:
            try:
                async with self.session.get(url, timeout=aiohttp.ClientTimeout(
                        total=self.args.health_check_timeout_secs)) as resp:
                    if resp.status == 200:
                        return True
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                pass
            if time.monotonic() >= deadline:
                return False
            log.info("Waiting for worker %s to become healthy", base_url)
            await asyncio.sleep(min(self.args.worker_startup_check_interval,
                                    max(0.0, deadline - time.monotonic())) or 0.01)

    async def get_json(self, url):
        async with self.session.get(url, timeout=aiohttp.ClientTimeout(total=30)) as resp:
            resp.raise_for_status()
            return await resp.json(content_type=None)

    async def worker_metadata(self, base_url, worker_type):
        """(model_id, tp_size, dp_size) read from a healthy worker at registration; raises
        aiohttp.ClientError / asyncio.TimeoutError / ValueError when it cannot be read."""
        model_id, tp_size, dp_size = "unknown", 1, None
        if self.args.backend == "atom":
            info = await self.get_json(base_url + "/server_info")
            model_id = info.get("model_id", model_id)
            dp_size = info.get("dp_size")
            if worker_type == "prefill":
                kv = await self.get_json(base_url + "/kv_transfer_info")
                tp_size = kv.get("tp_size", 1)
                dp_size = kv.get("dp_size", dp_size)
        else:
            models = await self.get_json(base_url + "/v1/models")
            data = models.get("data") or [{}]
            model_id = data[0].get("id", model_id)
        return model_id, tp_size, dp_size

    async def register(self, base_url, worker_type, bootstrap_port=None):
        base_url = base_url.rstrip("/")
        if not await self.wait_healthy(base_url):
            log.error("Worker %s did not become healthy within %ds", base_url,
                      self.args.worker_startup_timeout_secs)
            return []
        try:
            model_id, tp_size, dp_size = await self.worker_metadata(base_url, worker_type)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            log.error("Failed to read metadata from %s: %s", base_url, exc)
            return []
        ranks = range(dp_size or 1) if self.args.dp_aware else [None]
        created = []
        for rank in ranks:
            url = base_url if rank is None else f"{base_url}@{rank}"
            worker = Worker(url, worker_type, base_url, rank, bootstrap_port)
            worker.model_id, worker.tp_size, worker.dp_size = model_id, tp_size, dp_size
            created.append(worker)
        log.info("Registered %s worker %s (%d entr%s)", worker_type, base_url, len(created),
                 "y" if len(created) == 1 else "ies")
        return created

    async def register_all(self):
        args = self.args
        jobs = []
        if args.pd_disaggregation:
            jobs += [self.register(url, "prefill", port) for url, port in args.prefill]
            jobs += [self.register(url, "decode") for url in args.decode]
        else:
            jobs += [self.register(url, "regular") for url in args.worker_urls]
        started = time.monotonic()
        for workers in await asyncio.gather(*jobs):
            self.workers.extend(workers)
        log.info("Workers initialized: %d total, %d healthy (took %.1fs)", len(self.workers),
                 sum(w.healthy for w in self.workers), time.monotonic() - started)

    # -- health checker ------------------------------------------------------------------
    async def health_loop(self):
        args = self.args
        while True:
            await asyncio.sleep(args.health_check_interval_secs)
            for worker in list(self.workers):
                ok = False
                try:
                    async with self.session.get(
                            worker.base_url + args.health_check_endpoint,
                            timeout=aiohttp.ClientTimeout(
                                total=args.health_check_timeout_secs)) as resp:
                        ok = resp.status == 200
                except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                    ok = False
                if ok:
                    worker.health_failures = 0
                    worker.health_successes += 1
                    if not worker.healthy and \
                            worker.health_successes >= args.health_success_threshold:
                        worker.healthy = True
                        log.info("Worker %s is healthy again", worker.url)
                else:
                    worker.health_successes = 0
                    worker.health_failures += 1
                    if worker.healthy and worker.health_failures >= args.health_failure_threshold:
                        worker.healthy = False
                        log.warning("Worker %s marked unhealthy after %d failed checks",
                                    worker.url, worker.health_failures)

    # -- selection -----------------------------------------------------------------------
    def available(self, worker_type, exclude=()):
        now = time.monotonic()
        return [w for w in self.workers if w.worker_type == worker_type and w.healthy
                and w.circuit_open_until <= now and w not in exclude]

    def pick(self, worker_type, policy, text, exclude=()):
        candidates = self.available(worker_type, exclude)
        if not candidates:
            return None
        if policy == "random":
            return random.choice(candidates)
        if policy == "round_robin":
            index = self._rr.get(worker_type, 0)
            self._rr[worker_type] = index + 1
            return candidates[index % len(candidates)]
        if policy == "power_of_two":
            pair = random.sample(candidates, min(2, len(candidates)))
            return min(pair, key=lambda w: w.load)
        if policy in ("prefix_hash", "dp_sticky"):
            prefix = " ".join(text.split()[: self.args.prefix_token_count])
            digest = int(hashlib.blake2b(prefix.encode(), digest_size=8).hexdigest(), 16)
            return candidates[digest % len(candidates)]
        # cache_aware: the real policy keeps a text radix tree; without shared prefixes it
        # falls back to the least-loaded worker, which is what this approximation does.
        return min(candidates, key=lambda w: w.load)

    def note_failure(self, worker):
        worker.consecutive_failures += 1
        if not self.args.disable_circuit_breaker and \
                worker.consecutive_failures >= self.args.cb_failure_threshold:
            worker.circuit_open_until = time.monotonic() + self.args.cb_timeout_duration_secs
            log.warning("Circuit opened for worker %s", worker.url)

    async def post_with_retries(self, worker_type, policy, text, send):
        """Choose a worker and call send(worker); on a connection error retry on another."""
        tried = []
        attempts = 1 if self.args.disable_retries else 1 + self.args.retry_max_retries
        backoff = self.args.retry_initial_backoff_ms / 1000.0
        last_error = f"no healthy {worker_type} worker available"
        for attempt in range(attempts):
            worker = self.pick(worker_type, policy, text, exclude=tried)
            if worker is None:
                break
            tried.append(worker)
            worker.load += 1
            try:
                result = await send(worker)
                worker.consecutive_failures = 0
                return worker, result
            except (aiohttp.ClientConnectionError, asyncio.TimeoutError, OSError) as exc:
                last_error = f"{worker.url}: {type(exc).__name__}: {exc}"
                log.warning("Request to %s worker failed (attempt %d): %s", worker_type,
                            attempt + 1, last_error)
                self.note_failure(worker)
                await asyncio.sleep(min(backoff, self.args.retry_max_backoff_ms / 1000.0))
                backoff *= self.args.retry_backoff_multiplier
            finally:
                worker.load -= 1
        raise UpstreamError(last_error)


class UpstreamError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# HTTP handlers
# ---------------------------------------------------------------------------------------

class Gateway:
    ERROR_CODE_HEADER = "x-mesh-error-code"  # the error_code label of the responses counter

    def __init__(self, router):
        self.router = router
        self.args = router.args
        self.warm_at = time.monotonic() + WARMUP_503_SECONDS  # the app is made as the port is bound

    def app(self):
        router = self.router

        @web.middleware
        async def count_request(request, handler):
            key = (request.method, request.path)
            router.http_requests[key] = router.http_requests.get(key, 0) + 1
            return await handler(request)

        async def count_response(_request, response):
            key = (str(response.status), response.headers.get(self.ERROR_CODE_HEADER, ""))
            router.http_responses[key] = router.http_responses.get(key, 0) + 1

        app = web.Application(client_max_size=self.args.max_payload_size, middlewares=[count_request])
        app.on_response_prepare.append(count_response)
        r = app.router
        r.add_get("/health", self.liveness)
        r.add_get("/liveness", self.liveness)
        r.add_get("/readiness", self.readiness)
        r.add_get("/v1/models", self.models)
        r.add_get("/workers", self.list_workers)
        r.add_post("/v1/completions", self.completions)
        r.add_post("/v1/chat/completions", self.completions)
        r.add_get("/engine_metrics", self.engine_metrics)
        return app

    async def liveness(self, _request):
        return web.Response(text="OK")

    async def readiness(self, _request):
        workers = self.router.workers
        healthy = [w for w in workers if w.healthy]
        if self.args.pd_disaggregation:
            ready = any(w.worker_type == "prefill" for w in healthy) and \
                any(w.worker_type == "decode" for w in healthy)
        else:
            ready = bool(healthy)
        if ready:
            return web.json_response({"status": "ready", "healthy_workers": len(healthy),
                                      "total_workers": len(workers)})
        return web.json_response({"status": "not ready",
                                  "reason": "insufficient healthy workers"}, status=503)

    async def list_workers(self, _request):
        workers = self.router.workers
        count = lambda kind: sum(1 for w in workers if w.worker_type == kind)  # noqa: E731
        return web.json_response({
            "workers": [w.info(self.args.disable_health_check) for w in workers],
            "total": len(workers),
            "stats": {"prefill_count": count("prefill"), "decode_count": count("decode"),
                      "regular_count": count("regular")}})

    async def models(self, _request):
        kind = "decode" if self.args.pd_disaggregation else "regular"
        workers = self.router.available(kind) or self.router.available("prefill")
        if not workers:
            return web.json_response({"error": "No workers available"}, status=503)
        try:
            data = await self.router.get_json(workers[0].base_url + "/v1/models")
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            return web.json_response({"error": str(exc)}, status=502)
        return web.json_response(data)

    async def engine_metrics(self, _request):
        chunks = []
        for worker in {w.base_url: w for w in self.router.workers}.values():
            try:
                async with self.router.session.get(worker.base_url + "/metrics") as resp:
                    chunks.append(await resp.text())
            except (aiohttp.ClientError, asyncio.TimeoutError):
                continue
        return web.Response(text="".join(chunks), content_type="text/plain")

    # -- request routing -----------------------------------------------------------------
    async def completions(self, request):
        router = self.router
        router.requests_total += 1
        if time.monotonic() < self.warm_at:
            return web.json_response({"error": {"message": "router warming up (SRT_STANDIN_ROUTER_WARMUP_503_SECONDS)",
                                                "type": "service_unavailable", "code": 503}}, status=503)
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return web.json_response({"error": "invalid JSON body"}, status=400)
        text = str(body.get("prompt") or body.get("messages") or "")
        path = request.path
        try:
            if not self.args.pd_disaggregation:
                return await self.forward(request, "regular", path, body, text)
            if self.args.backend == "atom":
                return await self.atom_pd(request, path, body, text)
            return await self.bootstrap_pd(request, path, body, text)
        except UpstreamError as exc:
            router.request_errors_total += 1
            return web.json_response({"error": {"message": str(exc), "type": "bad_gateway",
                                                "code": 502}}, status=502)

    def policy(self, role):
        if role == "prefill" and self.args.prefill_policy:
            return self.args.prefill_policy
        if role == "decode" and self.args.decode_policy:
            return self.args.decode_policy
        return self.args.policy

    async def forward(self, request, role, path, body, text):
        """Send body to a worker of this role and stream its answer back unchanged."""
        async def send(worker):
            payload = dict(body)
            if worker.dp_rank is not None:
                payload["data_parallel_rank"] = worker.dp_rank
            return await self.router.session.post(worker.base_url + path, json=payload)

        worker, upstream = await self.router.post_with_retries(role, self.policy(role), text,
                                                               send)
        worker.load += 1  # the stream is the long part of a request: count it as load
        try:
            return await self.relay(request, upstream)
        finally:
            worker.load -= 1

    async def relay(self, request, upstream):
        try:
            out = web.StreamResponse(status=upstream.status, headers={
                "Content-Type": upstream.headers.get("Content-Type", "application/json")})
            await out.prepare(request)
            async for data in upstream.content.iter_any():
                await out.write(data)
            await out.write_eof()
            return out
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            # The decode died mid-stream: the client sees a truncated stream, as with hyper.
            log.warning("Upstream stream broken: %s", exc)
            return out
        finally:
            upstream.release()

    async def atom_pd(self, request, path, body, text):
        router = self.router

        async def send_prefill(worker):
            payload = dict(body)
            payload["kv_transfer_params"] = {"do_remote_decode": True, "do_remote_prefill": False}
            payload["stream"] = False
            payload["max_tokens"] = 1
            if "max_completion_tokens" in payload:
                payload["max_completion_tokens"] = 1
            payload.pop("stream_options", None)
            if worker.dp_rank is not None:
                payload["data_parallel_rank"] = worker.dp_rank
            async with router.session.post(worker.base_url + path, json=payload) as resp:
                return resp.status, await resp.read()

        prefill, (status, raw) = await router.post_with_retries(
            "prefill", self.policy("prefill"), text, send_prefill)
        if status != 200:
            return web.Response(status=status, body=raw, content_type="application/json")
        try:
            kv = json.loads(raw).get("kv_transfer_params")
        except (ValueError, AttributeError):
            kv = None
        if not isinstance(kv, dict):
            return web.json_response({"error": {
                "message": f"prefill {prefill.url} returned no kv_transfer_params",
                "type": "bad_gateway", "code": 502}}, status=502)
        kv["remote_dp_size"] = prefill.dp_size or 1
        kv["remote_tp_size"] = prefill.tp_size
        if isinstance(kv.get("dp_rank"), int):
            kv["remote_dp_rank"] = kv["dp_rank"]
        elif prefill.dp_rank is not None:
            kv["remote_dp_rank"] = prefill.dp_rank
        if MUTATION == "drop-remote-dp-rank":
            # A mutation for the tests: the router bug the decode's handshake must
            # catch. Every rank's KV then looks like rank 0's.
            kv.pop("remote_dp_rank", None)
        decode_body = dict(body, kv_transfer_params=kv)
        if self.args.atom_pd_rank_mapping_policy == "idx2idx" and prefill.dp_rank is not None:
            pinned = [w for w in router.available("decode") if w.dp_rank == prefill.dp_rank]
            if pinned:
                decode_body["data_parallel_rank"] = prefill.dp_rank
        return await self.forward(request, "decode", path, decode_body, text)

    def prefill_payload(self, _prefill, body, extra):
        """The body bootstrap_pd sends the prefill (sglang_router.py adds the DP rank)."""
        return dict(body, **extra)

    async def bootstrap_pd(self, request, path, body, text):
        """The SGLang-style PD flow (the default --backend): both sides at once."""
        router = self.router
        prefill = router.pick("prefill", self.policy("prefill"), text)
        if prefill is None:
            raise UpstreamError("no healthy prefill worker available")
        host = prefill.base_url.split("://", 1)[-1].rsplit(":", 1)[0]
        extra = {"bootstrap_host": host, "bootstrap_port": prefill.bootstrap_port,
                 "bootstrap_room": random.getrandbits(63)}

        async def prefill_call():
            try:
                async with router.session.post(prefill.base_url + path,
                                               json=self.prefill_payload(prefill, body, extra)) as resp:
                    await resp.read()
            except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                log.warning("prefill %s failed: %s", prefill.url, exc)

        task = asyncio.ensure_future(prefill_call())
        try:
            return await self.forward(request, "decode", path, dict(body, **extra), text)
        finally:
            await task


# ---------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------

def metrics_handler(router, prefix="mesh"):
    """The Prometheus listener (--prometheus-port): AToMesh's names (observability/metrics/
    schema.rs) and labels (recorder.rs), as the metrics crate's exporter renders them. prefix:
    "mesh" for AToMesh, "smg" for the SGLang router (sglang_router.py), whose gateway AToMesh
    forked with the same three series."""
    def label(value):
        return str(value).replace("\\", "\\\\").replace('"', '\\"')

    async def metrics(_request):
        lines = [f"# TYPE {prefix}_http_requests_total counter"]
        for (method, path), n in sorted(router.http_requests.items()):
            lines.append(f'{prefix}_http_requests_total{{method="{label(method)}",path="{label(path)}"}} {n}')
        lines.append(f"# TYPE {prefix}_http_responses_total counter")
        for (status, error), n in sorted(router.http_responses.items()):
            lines.append(f'{prefix}_http_responses_total{{status_code="{label(status)}",error_code="{label(error)}"}} {n}')
        lines += [f"# TYPE {prefix}_worker_pool_size gauge",
                  f"{prefix}_worker_pool_size {len(router.workers)}"]
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")
    return metrics


async def amain(args, router_cls=None, gateway_cls=None, metrics_prefix="mesh", metrics_factory=None):
    """Metrics listener, then worker registration, then the HTTP port; SIGTERM/SIGINT -> 0.
    router_cls/gateway_cls/metrics_prefix let sglang_router.py run the same startup;
    metrics_factory(router) -> handler replaces the /metrics handler (vllm_router.py)."""
    router = (router_cls or Router)(args)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    router.session = client_session(total_timeout=args.request_timeout_secs)
    runners = []
    try:
        metrics_app = web.Application()
        metrics_app.router.add_get("/metrics", (metrics_factory or (lambda r: metrics_handler(r, metrics_prefix)))(router))
        try:
            runners.append(await run_app(metrics_app, args.prometheus_host, args.prometheus_port,
                                         log, banner="Prometheus metrics on {host}:{port}"))
        except OSError as exc:
            print(f"Error: Failed to bind Prometheus exporter to {args.prometheus_host}:"
                  f"{args.prometheus_port}: {exc.strerror} (os error {exc.errno})",
                  file=sys.stderr)
            return 1
        registration = asyncio.ensure_future(router.register_all())
        stopper = asyncio.ensure_future(stop.wait())
        await asyncio.wait([registration, stopper], return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set():
            registration.cancel()
            return 0
        stopper.cancel()
        if not args.disable_health_check:
            health = asyncio.ensure_future(router.health_loop())
        try:
            runners.append(await run_app((gateway_cls or Gateway)(router).app(), args.host, args.port, log,
                                         banner="Starting server on {host}:{port}"))
        except OSError as exc:
            print(f"Error: {exc.strerror} (os error {exc.errno})", file=sys.stderr)
            return 1
        log.info("Router ready | workers: %s", [w.url for w in router.workers])
        await stop.wait()
        if not args.disable_health_check:
            health.cancel()
        return 0
    finally:
        for runner in reversed(runners):
            await runner.cleanup()
        await router.session.close()


def main(argv=None):
    args = parse_command_line(sys.argv[1:] if argv is None else argv)
    raise_nofile_limit()
    print("Atomesh starting...")
    print(f"Host: {args.host}:{args.port}")
    print("Mode: " + ("PD Disaggregated" if args.pd_disaggregation
                      else f"Regular ({args.backend})"))
    print(f"Policy: {args.policy}")
    if args.pd_disaggregation and args.prefill:
        print("Prefill nodes: [" + ", ".join(
            f'("{u}", {"None" if p is None else f"Some({p})"})' for u, p in args.prefill) + "]")
        print("Decode nodes: " + json.dumps(args.decode))
    sys.stdout.flush()
    return run_serving(amain(args))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Stand-in for the vLLM Router (vllm-project/router, the ``vllm-router`` binary), run as
tests/standins/bin/vllm-router.

Command line: every one of the 59 options of vllm-project/router src/main.rs @ 03e9af5c (clap 4
derive, struct CliArgs; the spec extracted from it is what check_cli_specs.py reads) with its kind
(flag / one value / several values / append), value type (integers and floats checked as numbers)
and choices, and clap's rules where argparse differs: a single-value option or flag given twice is
refused ("cannot be used multiple times"), an unknown option is ``error: unexpected argument '--x'
found``, both exit 2; ``--version``/``-V`` prints ``vllm-router VERSION``; ``--prefill URL
[PORT|none]`` is taken out of argv by hand before the rest is parsed (as main.rs does). Defaults
are the spec's: --host 127.0.0.1, --port 30000, --policy cache_aware, --worker-startup-timeout-secs
600 (check interval 30 s), --intra-node-data-parallel-size 1, --prometheus-host 127.0.0.1
--prometheus-port 29000, --max-concurrent-requests 32768, --kv-connector nixl, --backend vllm.

Behaviour (vllm-project/router src/main.rs @ 03e9af5c and src/config/types.rs; NVIDIA/srt-slurm
src/srtctl/frontends/vllm_router.py, which starts it and waits for it), on the AToMesh stand-in's
machinery (atomesh.py; the vLLM Router is, like AToMesh, a fork of the SGLang router):
- startup: the Prometheus listener first, then every --worker-urls URL is polled on
  --health-check-endpoint (/health) every --worker-startup-check-interval s until 200 or
  --worker-startup-timeout-secs; a worker that does not answer within that window is dropped and
  logged (srt-spank's core/plan/vllm_router.cpp relies on this), the router starts with the rest;
  then the HTTP port is bound.
- --intra-node-data-parallel-size L > 1: each URL is expanded, without asking the worker, into L
  entries ``URL@rank`` (so GET /workers counts L per advertised URL: srt-spank's and srtctl's
  readiness gate, srtctl frontends/vllm_router.py) and a request routed to an entry carries the
  rank in the ``X-data-parallel-rank`` header (what vllm-project/router sends and vLLM's OpenAI
  server reads; from the router's public source).
- GET /workers = {workers, total, stats:{prefill_count, decode_count, regular_count}}; /health and
  /liveness 200 "OK"; /readiness 503 until a healthy worker; /v1/models from a worker;
  /v1/completions and /v1/chat/completions proxied, SSE streams passed through.
- Policies (approximated by atomesh.Router.pick): consistent_hash and rendezvous_hash hash the
  ``X-Session-ID`` header (InferenceX's MI355X recipes use consistent_hash with X-Session-ID:
  benchmarks/single_node/srt-slurm-recipes/dsv4/vllm/mi355x-fp4-mtp/agentic.yaml), else the prompt;
  sticky_least_loaded is the session hash when there is one, else least loaded; cache_aware is
  least loaded; random, round_robin, power_of_two as named.
- Prometheus (--prometheus-host:--prometheus-port): ``vllm_router_requests_total{route}`` (each
  completion request as it arrives), ``vllm_router_request_errors_total{route,error_type}``
  (answers >= 400), ``vllm_router_active_workers`` and ``vllm_router_worker_health{worker}``.
  Names from vllm-project/router's public sources; srt-spank watches none of them
  (core/plan/vllm_router.cpp progress_metric() is "": not confirmed for vllm-router 0.1.14).
- --disable-retries (one attempt), retries/circuit breaker/health thresholds as in atomesh.py;
  SIGTERM/SIGINT: exit 0.
Not modelled (exit 1 with a message): --vllm-pd-disaggregation / --prefill / --decode (P/D),
--service-discovery and --vllm-discovery-address (MoRI-IO discovery), --enable-igw. Accepted and
ignored: tracing, API keys, CORS, queueing/rate limits, history backend, --profile, log options.
Lab knob shared with atomesh.py: SRT_STANDIN_ROUTER_WARMUP_503_SECONDS.
"""

import argparse
import builtins
import logging
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402

import atomesh  # noqa: E402
from standin_common import raise_nofile_limit, run_serving, setup_logging  # noqa: E402

VERSION = os.environ.get("SRT_STANDIN_VLLM_ROUTER_VERSION", "0.1.14")
POLICIES = ["random", "round_robin", "cache_aware", "power_of_two", "consistent_hash",
            "sticky_least_loaded", "rendezvous_hash"]
USAGE = "Usage: vllm-router [OPTIONS]"

# (long, kind, value type, default, choices, aliases) in CliArgs order (vllm-router.json).
# kind: flag | one | multi (values up to the next option) | append1 (one value per occurrence)
OPTIONS = [
    ("--host", "one", "String", "127.0.0.1", None, []),
    ("--port", "one", "u16", 30000, None, []),
    ("--worker-urls", "multi", "String", [], None, []),
    ("--policy", "one", "String", "cache_aware", POLICIES, []),
    ("--vllm-pd-disaggregation", "flag", "bool", False, None, []),
    ("--vllm-discovery-address", "one", "String", None, None, []),
    ("--decode", "append1", "String", None, None, []),
    ("--prefill-policy", "one", "String", None, POLICIES, []),
    ("--decode-policy", "one", "String", None, POLICIES, []),
    ("--worker-startup-timeout-secs", "one", "u64", 600, None, []),
    ("--worker-startup-check-interval", "one", "u64", 30, None, []),
    ("--cache-threshold", "one", "f32", 0.3, None, []),
    ("--balance-abs-threshold", "one", "usize", 64, None, []),
    ("--balance-rel-threshold", "one", "f32", 1.5, None, []),
    ("--eviction-interval", "one", "u64", 120, None, []),
    ("--max-tree-size", "one", "usize", 67108864, None, []),
    ("--max-payload-size", "one", "usize", 536870912, None, []),
    ("--intra-node-data-parallel-size", "one", "usize", 1, None, []),
    ("--api-key", "one", "String", None, None, []),
    ("--api-key-validation-urls", "multi", "String", [], None, []),
    ("--backend", "one", "Backend", "vllm", ["vllm", "trtllm", "openai", "anthropic"], ["--runtime"]),
    ("--log-dir", "one", "String", None, None, []),
    ("--log-level", "one", "String", "info", ["debug", "info", "warn", "error"], []),
    ("--enable-trace", "flag", "bool", False, None, []),
    ("--otlp-traces-endpoint", "one", "String", None, None, []),
    ("--otel-sampling-ratio", "one", "f64", 1.0, None, []),
    ("--otel-excluded-paths", "multi", "String", [], None, []),
    ("--service-discovery", "flag", "bool", False, None, []),
    ("--selector", "multi", "String", [], None, []),
    ("--service-discovery-port", "one", "u16", 80, None, []),
    ("--service-discovery-namespace", "one", "String", None, None, []),
    ("--prefill-selector", "multi", "String", [], None, []),
    ("--decode-selector", "multi", "String", [], None, []),
    ("--prometheus-port", "one", "u16", 29000, None, []),
    ("--prometheus-host", "one", "String", "127.0.0.1", None, []),
    ("--request-id-headers", "multi", "String", [], None, []),
    ("--request-timeout-secs", "one", "u64", 1800, None, []),
    ("--max-concurrent-requests", "one", "usize", 32768, None, []),
    ("--cors-allowed-origins", "multi", "String", [], None, []),
    ("--retry-max-retries", "one", "u32", 5, None, []),
    ("--retry-initial-backoff-ms", "one", "u64", 50, None, []),
    ("--retry-max-backoff-ms", "one", "u64", 30000, None, []),
    ("--retry-backoff-multiplier", "one", "f32", 1.5, None, []),
    ("--retry-jitter-factor", "one", "f32", 0.2, None, []),
    ("--disable-retries", "flag", "bool", False, None, []),
    ("--cb-failure-threshold", "one", "u32", 10, None, []),
    ("--cb-success-threshold", "one", "u32", 3, None, []),
    ("--cb-timeout-duration-secs", "one", "u64", 60, None, []),
    ("--cb-window-duration-secs", "one", "u64", 120, None, []),
    ("--disable-circuit-breaker", "flag", "bool", False, None, []),
    ("--health-failure-threshold", "one", "u32", 3, None, []),
    ("--health-success-threshold", "one", "u32", 2, None, []),
    ("--health-check-timeout-secs", "one", "u64", 5, None, []),
    ("--health-check-interval-secs", "one", "u64", 60, None, []),
    ("--health-check-endpoint", "one", "String", "/health", None, []),
    ("--enable-igw", "flag", "bool", False, None, []),
    ("--history-backend", "one", "String", "memory", ["memory", "none"], []),
    ("--profile", "flag", "bool", False, None, []),
    ("--kv-connector", "one", "KvConnector", "nixl", ["nixl", "mooncake", "moriio"], []),
]

UNSIGNED_MAX = {"u16": 65535, "u32": 2**32 - 1, "u64": 2**64 - 1, "usize": 2**64 - 1}


def clap_fail(message):
    sys.stderr.write(f"error: {message}\n\n{USAGE}\n\nFor more information, try '--help'.\n")
    sys.exit(2)


def value_parser(value_type):
    """Integers as clap's u16/u32/u64/usize (no sign, in range), floats as f32/f64; text else.
    The functions are named int/float so check_cli_specs.compare_clap sees those types."""
    if value_type in UNSIGNED_MAX:
        limit = UNSIGNED_MAX[value_type]

        def int(text):  # noqa: A001 - the name is what the spec checker reads
            if not text.isdigit() or builtins.int(text) > limit:
                raise ValueError(text)
            return builtins.int(text)
        return int
    if value_type in ("f32", "f64"):
        def float(text):  # noqa: A001
            return builtins.float(text)
        return float
    return None



class ClapParser(argparse.ArgumentParser):
    def error(self, message):
        clap_fail(message)


def build_parser():
    p = ClapParser(prog="vllm-router", allow_abbrev=False, add_help=True)
    for long, kind, value_type, default, choices, aliases in OPTIONS:
        names = [long] + aliases
        dest = long[2:].replace("-", "_")
        if kind == "flag":
            p.add_argument(*names, dest=dest, action="store_true")
            continue
        kwargs = {"dest": dest, "default": default}
        parser = value_parser(value_type)
        if parser is not None:
            kwargs["type"] = parser
        if choices:
            kwargs["choices"] = choices
        if kind == "multi":
            kwargs["nargs"] = "+"
        elif kind == "append1":
            kwargs["action"] = "append"
        p.add_argument(*names, **kwargs)
    return p


def split_prefill(argv):
    """--prefill URL [PORT|none] out of argv (split_prefill_args_from_others), as atomesh's."""
    return atomesh.split_prefill_args(argv)


def clap_prechecks(argv):
    """What clap refuses that argparse lets through: unknown options (before argparse's own,
    clap's wording) and a single-value option or flag given more than once."""
    by_name = {}
    for long, kind, _vt, _d, _c, aliases in OPTIONS:
        for name in [long] + aliases:
            by_name[name] = (long, kind)
    seen = set()
    for token in argv:
        if not token.startswith("--"):
            continue
        name = token.split("=", 1)[0]
        if name in ("--help", "--version"):
            continue
        if name not in by_name:
            clap_fail(f"unexpected argument '{name}' found")
        long, kind = by_name[name]
        if kind != "append1" and long in seen:
            clap_fail(f"the argument '{long}' cannot be used multiple times")
        seen.add(long)


def parse_command_line(argv):
    for arg in argv:
        if arg in ("--version", "-V"):
            print(f"vllm-router {VERSION}")
            sys.exit(0)
    prefill, rest = split_prefill(argv)
    clap_prechecks(rest)
    args = build_parser().parse_args(rest)
    args.prefill = prefill
    return args


# What atomesh.Router/Gateway read that this command line does not offer: fixed values.
GATEWAY_FIXED = {
    "pd_disaggregation": False,
    "prefix_token_count": 256,
    "atom_pd_rank_mapping_policy": "none",
    "disable_health_check": False,
}

# How each policy is approximated by atomesh.Router.pick (falls back to least loaded).
POLICY_EQUIVALENT = {
    "random": "random", "round_robin": "round_robin", "power_of_two": "power_of_two",
    "cache_aware": "cache_aware", "consistent_hash": "prefix_hash",
    "rendezvous_hash": "prefix_hash", "sticky_least_loaded": "prefix_hash",
}


def gateway_options(args):
    opts = argparse.Namespace(**GATEWAY_FIXED)
    for key, value in vars(args).items():
        setattr(opts, key, value)
    opts.dp_aware = args.intra_node_data_parallel_size > 1
    opts.decode = list(args.decode or [])
    opts.worker_urls = list(args.worker_urls or [])
    return opts


class VllmRouter(atomesh.Router):
    """atomesh.Router with the vLLM Router's static DP expansion and its policy names."""

    def __init__(self, args):
        super().__init__(args)
        self.route_requests = {}  # route -> count
        self.route_errors = {}    # (route, error_type) -> count

    def pick(self, worker_type, policy, text, exclude=()):
        if policy == "sticky_least_loaded" and not text.startswith("session:"):
            policy = "cache_aware"
        return super().pick(worker_type, POLICY_EQUIVALENT.get(policy, policy), text, exclude)

    async def worker_metadata(self, base_url, worker_type):
        """(model_id, tp_size, dp_size): the DP size is --intra-node-data-parallel-size, not
        asked of the worker; the model id from /v1/models when it answers."""
        model_id = "unknown"
        try:
            models = await self.get_json(base_url + "/v1/models")
            model_id = (models.get("data") or [{}])[0].get("id", model_id)
        except (aiohttp.ClientError, ValueError, AttributeError, IndexError) as exc:
            atomesh.log.warning("Could not read %s/v1/models: %s", base_url, exc)
        return model_id, 1, self.args.intra_node_data_parallel_size


class VllmGateway(atomesh.Gateway):
    ERROR_CODE_HEADER = "x-vllm-router-error-code"

    async def completions(self, request):
        router = self.router
        route = request.path
        router.route_requests[route] = router.route_requests.get(route, 0) + 1
        response = await super().completions(request)
        if response.status >= 400:
            key = (route, f"http_{response.status}")
            router.route_errors[key] = router.route_errors.get(key, 0) + 1
        return response

    async def forward(self, request, role, path, body, text):
        """The request to a worker entry; an ``URL@rank`` entry adds X-data-parallel-rank."""
        session = request.headers.get("X-Session-ID")
        if session:
            text = "session:" + session

        async def send(worker):
            headers = {}
            if worker.dp_rank is not None:
                headers["X-data-parallel-rank"] = str(worker.dp_rank)
            return await self.router.session.post(worker.base_url + path, json=body,
                                                  headers=headers)

        worker, upstream = await self.router.post_with_retries(role, self.policy(role), text, send)
        worker.load += 1
        try:
            return await self.relay(request, upstream)
        finally:
            worker.load -= 1


def metrics_factory(router):
    def label(value):
        return str(value).replace("\\", "\\\\").replace('"', '\\"')

    async def metrics(_request):
        lines = ["# TYPE vllm_router_requests_total counter"]
        for route, n in sorted(router.route_requests.items()):
            lines.append(f'vllm_router_requests_total{{route="{label(route)}"}} {n}')
        lines.append("# TYPE vllm_router_request_errors_total counter")
        for (route, kind), n in sorted(router.route_errors.items()):
            lines.append(f'vllm_router_request_errors_total{{route="{label(route)}",'
                         f'error_type="{label(kind)}"}} {n}')
        lines += ["# TYPE vllm_router_active_workers gauge",
                  f"vllm_router_active_workers {sum(1 for w in router.workers if w.healthy)}",
                  "# TYPE vllm_router_worker_health gauge"]
        for w in router.workers:
            lines.append(f'vllm_router_worker_health{{worker="{label(w.url)}"}} {int(w.healthy)}')
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")
    return metrics


def main(argv=None):
    args = parse_command_line(sys.argv[1:] if argv is None else argv)
    atomesh.log = setup_logging("vllm_router")
    logging.getLogger().setLevel({"warn": "WARNING"}.get(args.log_level, args.log_level.upper()))
    unsupported = [name for name, on in (
        ("--vllm-pd-disaggregation", args.vllm_pd_disaggregation),
        ("--prefill", bool(args.prefill)), ("--decode", bool(args.decode)),
        ("--service-discovery", args.service_discovery),
        ("--vllm-discovery-address", args.vllm_discovery_address is not None),
        ("--enable-igw", args.enable_igw)) if on]
    if unsupported:
        atomesh.log.error("not modelled by the vllm-router stand-in: %s (static --worker-urls "
                          "only)", ", ".join(unsupported))
        return 1
    raise_nofile_limit()
    opts = gateway_options(args)
    atomesh.log.info("Starting router on %s:%d | mode: Regular | policy: %s | "
                     "intra_node_data_parallel_size: %d", opts.host, opts.port, opts.policy,
                     opts.intra_node_data_parallel_size)
    atomesh.log.info("Workers: %s", opts.worker_urls)
    return run_serving(atomesh.amain(opts, router_cls=VllmRouter, gateway_cls=VllmGateway,
                                     metrics_factory=metrics_factory))


if __name__ == "__main__":
    sys.exit(main())

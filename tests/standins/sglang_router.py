#!/usr/bin/python3
"""Stand-in for the SGLang router (SGLang Model Gateway): ``python -m sglang_router.launch_router``.

The command line is a SUBSET of the real one: only the options this stand-in honours or that
recipes pass (srtctl's frontend.args in the InferenceX MI355X recipes; srt-spank's
core/plan/sglang_router.cpp) are accepted, each with exactly the shape (option strings, action,
nargs, type, choices, default) it has in sglang-router 0.3.2's argparse
(bindings/python/src/sglang_router/router_args.py at lightseekorg/smg f908d9e, as recorded in the
spec extracted from it, which check_cli_specs.py reads), with these deliberate exceptions:
- --policy/--prefill-policy/--decode-policy take the UNION of sglang-router 0.3.2's and smg
  1.9.0's choices: InferenceX's MI355X recipes pass ``consistent_hashing``, which only smg has.
- --connect-timeout-secs is in NEITHER spec (not in 0.3.2, not in smg 1.9.0), but InferenceX's
  MI355X scripts and recipes pass it (``connect-timeout-secs: 900``) to an image whose router
  build is unresolved (neither sglang-router 0.3.2 nor smg 1.9.0 takes both). Accepted as an
  int, the shape of its sibling --request-timeout-secs; otherwise ignored.
Anything else is an argparse error, exit status 2 (allow_abbrev stays argparse's default, True,
as in the real parser).

Behaviour, as the real gateway (sglang-router 0.3.2 / smg 1.9.0 @ 73da68ca: router_args.py and
launch_router.py; NVIDIA/srt-slurm src/srtctl/frontends/sglang.py and frontends/static_router.py
@ 1630a9ac, which start it and wait for it; SemiAnalysisAI/InferenceX
benchmarks/multi_node/amd_utils/server_sglang.sh @ 843c6254, which runs it), on the AToMesh
stand-in's machinery (atomesh.py: AToMesh is AMD's fork of this gateway):
- startup: the Prometheus listener first (--prometheus-host:--prometheus-port, CLI default
  0.0.0.0:29000, router_args.py's argparse default); then every worker is polled on
  --health-check-endpoint (/health) until 200 or --worker-startup-timeout-secs (1800 s); a worker
  that does not answer in that window is dropped and logged, the router starts with the rest
  (srtctl frontends/sglang.py: "the gateway drops a static worker that does not answer within its
  startup window"); then the HTTP port is bound.
- --dp-aware: each worker's /server_info (404 -> /get_server_info, as the gateway falls back) is
  read for ``dp_size`` and the worker is registered once per DP rank as ``URL@rank``; a request
  routed to an entry carries that rank in the JSON body as ``data_parallel_rank`` (the field the
  gateway inserts and the ATOM stand-in's server reads, atom_server.py pick_rank). In P/D the
  prefill's entry rank goes to the prefill the same way. A worker without dp_size is not
  registered (logged).
- GET /workers = {workers, total, stats:{prefill_count, decode_count, regular_count}} (one entry
  per DP rank, what srtctl's check_sglang_router_health counts); /health and
  /liveness 200 "OK"; /readiness 503 until a healthy worker (P/D: a prefill and a decode);
  /v1/models from a worker; /v1/completions and /v1/chat/completions proxied, streams passed
  through.
- P/D (--pd-disaggregation --prefill URL [PORT|none] ... --decode URL ...): prefill and decode
  are sent the request at the same time with bootstrap_host (the prefill URL's host),
  bootstrap_port (the --prefill entry's PORT; none/absent -> null) and a random bootstrap_room.
- Prometheus: smg_http_requests_total{method,path}, smg_http_responses_total{status_code,
  error_code} (srt-spank's stall watch reads status_code="200") and smg_worker_pool_size: the
  same three series AToMesh serves, with smg's prefix.
- --disable-retries (one attempt), --disable-health-check (no periodic checks after startup),
  retries/circuit breaker/health thresholds as in atomesh.py; --request-id-headers accepted.
- SIGTERM/SIGINT: exit 0. The stand-in does not fork (newer builds fork the Rust worker and
  exit; callers kill the process group either way, as InferenceX's server_sglang.sh does under
  setsid).
Policies are approximated by atomesh.Router.pick (see POLICY_EQUIVALENT).
Lab knob shared with atomesh.py: SRT_STANDIN_ROUTER_WARMUP_503_SECONDS.
"""

import argparse
import logging
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import aiohttp  # noqa: E402

import atomesh  # noqa: E402
from standin_common import raise_nofile_limit, run_serving, setup_logging  # noqa: E402

# sglang-router 0.3.2's --policy choices, then smg 1.9.0's additions (its order).
POLICIES_0_3_2 = ["random", "round_robin", "cache_aware", "power_of_two", "manual"]
POLICIES_SMG_ONLY = ["passthrough", "least_load", "consistent_hashing", "prefix_hash"]
POLICIES = POLICIES_0_3_2 + POLICIES_SMG_ONLY
PREFILL_POLICIES = POLICIES + ["bucket"]  # bucket: prefill only, in both

# How each policy is approximated by atomesh.Router.pick (which falls back to least-loaded).
POLICY_EQUIVALENT = {
    "random": "random", "round_robin": "round_robin", "power_of_two": "power_of_two",
    "cache_aware": "cache_aware",       # least-loaded: the radix tree has no shared prefixes here
    "least_load": "cache_aware",        # least-loaded
    "bucket": "cache_aware",            # least-loaded
    "manual": "random",                 # sticky by routing-key header; random without one
    "passthrough": "round_robin",
    "consistent_hashing": "prefix_hash",  # a hash of the request text picks the worker
    "prefix_hash": "prefix_hash",
}

# What atomesh.Router/Gateway read that this command line does not offer: fixed values.
GATEWAY_FIXED = {
    "backend": "sglang",                 # the bootstrap P/D flow (atomesh.Gateway.bootstrap_pd)
    "prefix_token_count": 256,
    "atom_pd_rank_mapping_policy": "none",
    "max_payload_size": 536870912,
    "disable_circuit_breaker": False,
    "cb_failure_threshold": 10,
    "cb_timeout_duration_secs": 60,
}


def build_parser():
    p = argparse.ArgumentParser()  # the real launcher's: allow_abbrev default (True), exit 2
    a = p.add_argument
    # Worker configuration
    a("--host", type=str, default="0.0.0.0")
    a("--port", type=int, default=30000)
    a("--worker-urls", type=str, nargs="*", default=[])
    # Routing policy (choices: union of 0.3.2 and smg 1.9.0, see the module docstring)
    a("--policy", type=str, default="cache_aware", choices=POLICIES)
    a("--prefill-policy", type=str, default=None, choices=PREFILL_POLICIES)
    a("--decode-policy", type=str, default=None, choices=POLICIES)
    a("--cache-threshold", type=float, default=0.3)            # accepted (recipes pass it)
    a("--balance-abs-threshold", type=int, default=64)         # accepted (recipes pass it)
    a("--balance-rel-threshold", type=float, default=1.5)      # accepted (recipes pass it)
    a("--dp-aware", action="store_true")
    # PD disaggregation
    a("--pd-disaggregation", action="store_true")
    a("--prefill", nargs="+", action="append")                 # URL [BOOTSTRAP_PORT|none]
    a("--decode", nargs=1, action="append", metavar=("URL",))
    a("--worker-startup-timeout-secs", type=int, default=1800)
    a("--worker-startup-check-interval", type=int, default=30)
    # Logging and metrics
    a("--log-level", type=str, default="info", choices=["debug", "info", "warn", "error"])
    a("--prometheus-port", type=int, default=29000)
    a("--prometheus-host", type=str, default="0.0.0.0")
    # Request handling
    a("--request-id-headers", type=str, nargs="*")             # accepted
    a("--request-timeout-secs", type=int, default=1800)
    # NOT in sglang-router 0.3.2 nor in smg 1.9.0: InferenceX passes it (module docstring).
    a("--connect-timeout-secs", type=int, default=None)
    # Retries and circuit breaker
    a("--retry-max-retries", type=int, default=5)
    a("--retry-initial-backoff-ms", type=int, default=50)
    a("--retry-max-backoff-ms", type=int, default=30000)
    a("--retry-backoff-multiplier", type=float, default=1.5)
    a("--retry-jitter-factor", type=float, default=0.2)        # accepted
    a("--disable-retries", action="store_true")
    a("--cb-failure-threshold", type=int, default=10)
    a("--cb-timeout-duration-secs", type=int, default=60)
    a("--disable-circuit-breaker", action="store_true")
    # Health checks
    a("--health-failure-threshold", type=int, default=3)
    a("--health-success-threshold", type=int, default=2)
    a("--health-check-timeout-secs", type=int, default=5)
    a("--health-check-interval-secs", type=int, default=60)
    a("--health-check-endpoint", type=str, default="/health")
    a("--disable-health-check", action="store_true", default=False)
    return p


def parse_prefill(entries):
    """[[URL, PORT|none, ...], ...] -> [(URL, int|None)]: PORT absent or 'none' is None, other
    text is an error, further items are ignored (as the real launcher reads --prefill)."""
    parsed = []
    for entry in entries or []:
        port = None
        if len(entry) >= 2 and entry[1].lower() != "none":
            try:
                port = int(entry[1])
            except ValueError:
                raise ValueError(f"Invalid bootstrap port: {entry[1]}. Must be a number or 'none'")
        parsed.append((entry[0], port))
    return parsed


def parse_command_line(argv):
    """The parsed options as the neutral namespace atomesh.Router/Gateway read."""
    args = build_parser().parse_args(argv)
    opts = argparse.Namespace(**GATEWAY_FIXED)
    for key, value in vars(args).items():
        setattr(opts, key, value)
    opts.prefill = parse_prefill(args.prefill)
    opts.decode = [entry[0] for entry in args.decode or []]
    opts.worker_urls = list(args.worker_urls or [])
    return opts


class SglangRouter(atomesh.Router):
    """atomesh.Router with the gateway's DP discovery and its policy names."""

    def pick(self, worker_type, policy, text, exclude=()):
        return super().pick(worker_type, POLICY_EQUIVALENT.get(policy, policy), text, exclude)

    async def server_info(self, base_url):
        async with self.session.get(base_url + "/server_info",
                                    timeout=aiohttp.ClientTimeout(total=30)) as resp:
            if resp.status != 404:
                resp.raise_for_status()
                return await resp.json(content_type=None)
        return await self.get_json(base_url + "/get_server_info")

    async def worker_metadata(self, base_url, worker_type):
        if not self.args.dp_aware:
            return await super().worker_metadata(base_url, worker_type)
        info = await self.server_info(base_url)
        dp_size = info.get("dp_size") if isinstance(info, dict) else None
        if not isinstance(dp_size, int) or dp_size < 1:
            raise ValueError(f"no dp_size in {base_url}/server_info (--dp-aware needs it)")
        model_id = info.get("model_id") or info.get("served_model_name") or \
            info.get("model_path") or "unknown"
        return model_id, info.get("tp_size", 1), dp_size


class SglangGateway(atomesh.Gateway):
    ERROR_CODE_HEADER = "x-smg-error-code"

    def prefill_payload(self, prefill, body, extra):
        payload = dict(body, **extra)
        if prefill.dp_rank is not None:
            payload["data_parallel_rank"] = prefill.dp_rank
        return payload


def main(argv=None):
    try:
        args = parse_command_line(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    # The shared machinery logs through atomesh.log: name it after this program.
    atomesh.log = setup_logging("sglang_router")
    logging.getLogger().setLevel({"warn": "WARNING"}.get(args.log_level, args.log_level.upper()))
    raise_nofile_limit()
    mode = "PD Disaggregated" if args.pd_disaggregation else "Regular"
    atomesh.log.info("Starting router on %s:%d | mode: %s | policy: %s | dp_aware: %s",
                     args.host, args.port, mode, args.policy, args.dp_aware)
    if args.pd_disaggregation:
        atomesh.log.info("Prefill: %s | Decode: %s", args.prefill, args.decode)
    else:
        atomesh.log.info("Workers: %s", args.worker_urls)
    return run_serving(atomesh.amain(args, router_cls=SglangRouter, gateway_cls=SglangGateway,
                                     metrics_prefix="smg"))


if __name__ == "__main__":
    sys.exit(main())

"""The command line of ``python -m atom.entrypoints.openai_server`` (classic server).

Flags, spellings and defaults are ATOM's at ffdf3bb: EngineArgs.add_cli_args
(atom/model_engine/arg_utils.py) plus the server flags of atom/entrypoints/openai/api_server.py.
ATOM parses with its FlexibleArgumentParser (atom/utils/arg_parser.py), which registers the
dash/underscore twin of every long flag, so ``--kv-cache-dtype`` and ``--kv_cache_dtype`` are
both accepted; anything else is refused by argparse with exit status 2.
"""

import argparse
import json

DP_LB_STRATEGIES = ("round_robin", "least_requests", "least_tokens")
DEFAULT_HTTP_PORT = 8000   # api_server.DEFAULT_PORT
DEFAULT_ENGINE_PORT = 8006  # EngineArgs.port -> MASTER_PORT
DEFAULT_HANDSHAKE_PORT = 6301  # mooncake_connector / api_server._resolve_kv_transfer_role
DEFAULT_DP_MASTER_PORT = 29500  # ParallelConfig.data_parallel_master_port


class FlexibleArgumentParser(argparse.ArgumentParser):
    """Registers the ``--a-b`` / ``--a_b`` counterpart of each long option, as ATOM does."""

    def add_argument(self, *names, **kwargs):
        expanded = list(names)
        for opt in names:
            if not opt.startswith("--"):
                continue
            stem = opt[2:]
            for alt in ("--" + stem.replace("_", "-"), "--" + stem.replace("-", "_")):
                if alt not in expanded and alt not in self._option_string_actions:
                    expanded.append(alt)
        return super().add_argument(*expanded, **kwargs)

    # add_argument_group is deliberately not overridden: ATOM's isn't either, so the DCP and
    # EPLB group flags (--dcp-config, --eplb-enable, ...) have no underscore twins.


def add_engine_args(p):
    """EngineArgs.add_cli_args at ffdf3bb (help texts shortened)."""
    p.add_argument("--model", type=str, default="Qwen/Qwen3-0.6B", help="Model name or path.")
    p.add_argument("--served-model-name", type=str, default=None)
    p.add_argument("--trust-remote-code", action="store_true")
    p.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
    p.add_argument("--pipeline-parallel-size", "-pp", type=int, default=1)
    p.add_argument("--prefill-context-parallel-size", "-pcp", type=int, default=1)
    p.add_argument("--data-parallel-size", "-dp", type=int, default=1)
    p.add_argument("--decode-context-parallel-size", "-dcp", type=int, default=1)
    p.add_argument("--enforce-eager", action="store_true")
    p.add_argument("--enable_prefix_caching", action=argparse.BooleanOptionalAction,
                   default=True)
    p.add_argument("--port", type=int, default=DEFAULT_ENGINE_PORT, help="Engine internal port")
    p.add_argument("--kv_cache_dtype", choices=["bf16", "fp8"], type=str, default="bf16")
    p.add_argument("--index-cache-dtype", "--index_cache_dtype", choices=["bf16", "fp8", "fp4"],
                   type=str, default=None)
    p.add_argument("--block-size", type=int, default=16)
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument("--cudagraph-capture-sizes", type=str,
                   default="[1,2,4,8,16,32,48,64,128,256,512]")
    p.add_argument("--level", type=int, default=3)
    p.add_argument("--cudagraph-mode", type=str, default="FULL",
                   choices=["NONE", "PIECEWISE", "FULL", "FULL_AND_PIECEWISE", "AF_PIECEWISE"])
    p.add_argument("--load_dummy", nargs="?", const="empty", default=None,
                   choices=["empty", "zero", "xavier"])
    p.add_argument("--enable-expert-parallel", action="store_true")
    p.add_argument("--fake-eplb", action="store_true")
    p.add_argument("--torch-profiler-dir", type=str, default=None)
    p.add_argument("--enable-dp-attention", action="store_true")
    p.add_argument("--dp-load-balance", type=str, default="least_requests",
                   choices=list(DP_LB_STRATEGIES))
    p.add_argument("--enable-tbo", nargs="?", const="prefill", default=None,
                   choices=["prefill", "all"])
    p.add_argument("--all2all-backend", nargs="?", const="high-throughput", default=None,
                   choices=["high-throughput", "low-latency"])
    p.add_argument("--moe-backend", type=str, default="standard", choices=["standard", "mega"])
    p.add_argument("--method", type=str, default=None, choices=["mtp", "eagle3", "dspark"])
    p.add_argument("--num-speculative-tokens", type=int, default=1)
    p.add_argument("--draft-model", type=str, default=None)
    p.add_argument("--spec-decode-acceptance-length", type=float, default=None)
    p.add_argument("--spec-decode-acceptance-rate", type=float, default=None)
    p.add_argument("--max-num-batched-tokens", type=int, default=16384)
    p.add_argument("--long-prefill-token-threshold", type=int, default=0)
    p.add_argument("--attn-prefill-chunk-size", type=int, default=16384)
    p.add_argument("--state-checkpoint-interval-tokens", type=int, default=8192)
    p.add_argument("--enable_chunked_prefill", action=argparse.BooleanOptionalAction,
                   default=True)
    p.add_argument("--max-num-seqs", type=int, default=512)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    p.add_argument("--kv-transfer-config", type=str, default="{}")
    p.add_argument("--scheduler-delay-factor", type=float, default=0.0)
    p.add_argument("--mark-trace", action="store_true")
    p.add_argument("--enable-rapidserve", action="store_true")
    p.add_argument("--disagg-prefill-max-num-seqs", type=int, default=None)
    p.add_argument("--disagg-constrained", action="store_true")
    p.add_argument("--online_quant_config", type=json.loads, default=None)
    p.add_argument("--hf-overrides", type=json.loads, default=None)
    p.add_argument("--dspark-config", type=json.loads, default=None)
    dcp = p.add_argument_group("DCP options")
    dcp.add_argument("--dcp-config", type=json.loads, default=None)
    eplb = p.add_argument_group("EPLB options")
    eplb.add_argument("--eplb-enable", "--enable-eplb", action="store_true")
    eplb.add_argument("--eplb-config", type=json.loads, default=None)


def build_parser():
    p = FlexibleArgumentParser(description="ATOM OpenAI API Server")
    add_engine_args(p)
    p.add_argument("--host", type=str, default="0.0.0.0", help="Server host")
    p.add_argument("--server-port", type=int, default=DEFAULT_HTTP_PORT,
                   help="Server port (note: --port is used for internal engine communication)")
    p.add_argument("--timeout-keep-alive", type=int, default=5)
    p.add_argument("--disable-uvicorn-access-log", action="store_true")
    p.add_argument("--chat-template", type=str, default=None)
    p.add_argument("--default-chat-template-kwargs", type=str, default=None)
    p.add_argument("--request-log", type=str, default=None)
    return p


def parse_args(argv=None):
    return build_parser().parse_args(argv)

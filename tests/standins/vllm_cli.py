"""The command line of ``vllm serve [model_tag] ...`` (a SUBSET of the real one).

The stand-in knows the options it honours and those the corpus's MI355X vLLM recipes and
srt-spank's Plan pass (core/plan/vllm.cpp; `srt-helper plan --json` of every single-node
``*/vllm/mi355x-*`` recipe of corpus-v2.18), each with the shape it has in the spec of the real
parser (kept outside the project, read by check_cli_specs.py; built from vllm-project/vllm
vllm/entrypoints/openai/cli_args.py @ 00522333, make_arg_parser + FrontendArgs, and from
EngineArgs.add_cli_args in an annotated copy of vllm/engine/arg_utils.py): option strings incl. the
short aliases, action (every engine bool is ``argparse.BooleanOptionalAction``: ``--x`` /
``--no-x``), nargs, type, choices, const. Defaults: the spec's where it records one; where the spec
leaves a config-class default unresolved, the stand-in uses vLLM's usual value and says so with
``# unresolved in the spec``. Any other option is refused by argparse (exit status 2).

Value types the spec records as a parser of vLLM's own (``human_readable_int``,
``human_readable_int_or_auto``, ``TypeAdapter(<dataclass>).validate_json``) are text here and
checked after parsing where the stand-in uses them (as the checker rebuilds them:
check_cli_specs.python_type). Options whose value is ``json.loads`` in the spec use json.loads.

Two options are in NO spec: ``--engram-config`` and ``--swa-bounded-replay``
(``--no-swa-bounded-replay``): the dsv41flash MI355X recipe passes them to its nightly vLLM image
(tests/unit/plan/spec_exemptions.tsv). Accepted with the shape vLLM gives a dataclass option (one
JSON string) and a bool (BooleanOptionalAction); otherwise ignored. See EXTRAS.

FlexibleArgumentParser behaviour kept: ``--a_b`` is read as ``--a-b`` (also ``--a_b=v``).
Not kept: ``--config FILE.yaml``, dotted JSON keys (``--compilation-config.mode 3``), ``-O3``.
allow_abbrev is off (the spec leaves it unresolved; refusing an abbreviation is the safe side).
"""

import argparse
import json

DEFAULT_MODEL = "Qwen/Qwen3-0.6B"  # ModelConfig.model (unresolved in the spec)
DEFAULT_PORT = 8000                # FrontendArgs.port (spec)
UVICORN_LOG_LEVELS = ["critical", "debug", "error", "info", "trace", "warning"]

# Options the stand-in accepts that vllm-serve.json lacks, with the reason (for the checker).
EXTRAS = {
    "--engram-config": "DeepSeek-V4.1 Engram option of the dsv41flash recipe's nightly vLLM image "
                       "(nightly-rocm100-7f1a5398); not in the vLLM source the spec was read from",
    "--swa-bounded-replay": "sparse-SWA replay switch (--no-swa-bounded-replay) of the same nightly "
                            "image; not in the vLLM source the spec was read from",
}

BOOL = argparse.BooleanOptionalAction


class VllmArgumentParser(argparse.ArgumentParser):
    """argparse with FlexibleArgumentParser's underscore spelling (``--max_model_len``)."""

    def parse_args(self, args=None, namespace=None):
        import sys
        argv = list(sys.argv[1:] if args is None else args)
        fixed = []
        for arg in argv:
            if arg.startswith("--") and "_" in arg.split("=", 1)[0]:
                key, sep, value = arg.partition("=")
                arg = "--" + key[2:].replace("_", "-") + sep + value
            fixed.append(arg)
        return super().parse_args(fixed, namespace)


def build_parser():
    p = VllmArgumentParser(prog="vllm serve", allow_abbrev=False,
                           description="Launch a local OpenAI-compatible API server (stand-in).")
    a = p.add_argument
    # make_arg_parser (serve)
    a("model_tag", type=str, nargs="?", default=None, help="The model tag to serve.")
    a("--headless", action="store_true", default=False)
    a("--api-server-count", "-asc", type=int, default=None)
    # FrontendArgs
    a("--host", type=str, default=None)
    a("--port", type=int, default=DEFAULT_PORT)
    a("--uvicorn-log-level", type=str, choices=UVICORN_LOG_LEVELS, default="info")
    a("--disable-uvicorn-access-log", action=BOOL, default=False)
    a("--enable-auto-tool-choice", action=BOOL, default=False)
    a("--tool-call-parser", type=str, default=None)
    a("--default-chat-template-kwargs", type=json.loads, default=None)
    # ModelConfig
    a("--model", type=str, default=None)  # DEFAULT_MODEL when neither it nor model_tag is given
    a("--served-model-name", type=str, nargs="+", default=None)
    a("--trust-remote-code", action=BOOL, default=False)          # unresolved in the spec
    a("--revision", type=str, default=None)                       # unresolved in the spec
    a("--tokenizer-revision", type=str, default=None)             # unresolved in the spec
    a("--tokenizer-mode", type=str, default="auto")               # unresolved in the spec
    a("--max-model-len", type=str, default=None)                  # human_readable_int_or_auto
    a("--enforce-eager", action=BOOL, default=False)              # unresolved in the spec
    a("--language-model-only", action=BOOL, default=False)        # unresolved in the spec
    # LoadConfig / AttentionConfig / StructuredOutputsConfig
    a("--load-format", type=str, default="auto")                  # unresolved in the spec
    a("--attention-backend", type=str, default=None)              # unresolved in the spec
    a("--reasoning-parser", type=str, default="")                 # unresolved in the spec
    # ParallelConfig
    a("--distributed-executor-backend", type=str, default=None)   # unresolved in the spec
    a("--pipeline-parallel-size", "-pp", type=int, default=1)     # unresolved in the spec
    a("--tensor-parallel-size", "-tp", type=int, default=1)       # unresolved in the spec
    a("--prefill-context-parallel-size", "-pcp", type=int, default=1)  # unresolved in the spec
    a("--data-parallel-size", "-dp", type=int, default=1)         # unresolved in the spec
    a("--data-parallel-rank", "-dpn", type=int, default=None)
    a("--data-parallel-start-rank", "-dpr", type=int, default=None)
    a("--data-parallel-size-local", "-dpl", type=int, default=None)
    a("--data-parallel-address", "-dpa", type=str, default=None)
    a("--data-parallel-rpc-port", "-dpp", type=int, default=None)
    a("--data-parallel-backend", "-dpb", type=str, default="mp")
    a("--data-parallel-hybrid-lb", "-dph", action=BOOL, default=False)    # unresolved in the spec
    a("--data-parallel-external-lb", "-dpe", action=BOOL, default=False)  # unresolved in the spec
    a("--enable-expert-parallel", "-ep", action=BOOL, default=False)      # unresolved in the spec
    a("--master-addr", type=str, default="127.0.0.1")             # unresolved in the spec
    a("--master-port", type=int, default=29500)                   # unresolved in the spec
    a("--nnodes", "-n", type=int, default=1)                      # unresolved in the spec
    a("--node-rank", "-r", type=int, default=0)                   # unresolved in the spec
    a("--device-ids", type=str, default=None)
    # CacheConfig
    a("--block-size", type=int, default=None)
    a("--gpu-memory-utilization", type=float, default=0.9)        # unresolved in the spec
    a("--kv-cache-dtype", type=str, default="auto")               # choices unresolved in the spec
    a("--enable-prefix-caching", action=BOOL, default=None)
    # SchedulerConfig
    a("--max-num-batched-tokens", type=str, default=None)         # human_readable_int
    a("--max-num-seqs", type=int, default=None)
    a("--long-prefill-token-threshold", type=int, default=0)      # unresolved in the spec
    a("--enable-chunked-prefill", action=BOOL, default=None)
    a("--prefill-schedule-interval", type=int, default=None)      # unresolved in the spec
    a("--disable-hybrid-kv-cache-manager", action=BOOL, default=False)  # unresolved in the spec
    a("--async-scheduling", action=BOOL, default=None)            # unresolved in the spec
    a("--stream-interval", type=int, default=1)                   # unresolved in the spec
    # CompilationConfig / KernelConfig
    a("--max-cudagraph-capture-size", type=int, default=None)     # unresolved in the spec
    a("--moe-backend", type=str, default="auto")                  # choices unresolved in the spec
    # VllmConfig (dataclass options: one JSON string each)
    a("--speculative-config", "-sc", type=json.loads, default=None)
    a("--kv-transfer-config", type=str, default=None)
    a("--kv-events-config", type=str, default=None)
    a("--compilation-config", "-cc", type=str, default=None)
    a("--attention-config", "-ac", type=str, default=None)
    # In no spec (EXTRAS): the dsv41flash recipe's nightly image takes them.
    a("--engram-config", type=str, default=None)
    a("--swa-bounded-replay", action=BOOL, default=None)
    return p


def human_readable_int(value, allow_auto=False):
    """vLLM's human_readable_int(_or_auto): 8192, 8k (x1000), 8K (x1024), 1m/1M, 1g/1G; 'auto'
    and -1 for max-model-len. Raises ValueError on anything else."""
    if value is None:
        return None
    text = str(value).strip()
    if allow_auto and text.lower() in ("auto", "-1"):
        return -1
    units = {"k": 10**3, "m": 10**6, "g": 10**9, "K": 2**10, "M": 2**20, "G": 2**30}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def parse_args(argv=None):
    return build_parser().parse_args(argv)

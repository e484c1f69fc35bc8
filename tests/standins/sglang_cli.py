"""The command line of ``python3 -m sglang.launch_server`` (the stand-in's subset).

The real parser (sgl-project/sglang python/sglang/srt/server_args.py @ 001067ff,
``argparse.ArgumentParser(prog="sglang serve")``, ``allow_abbrev`` left at True) has 497 arguments,
almost all generated from the annotated ``ServerArgs`` dataclass (the rules of
``add_cli_args_from_dataclass`` in python/sglang/srt/arg_groups/arg_utils.py @ 0116c606). That list
is data of the real program: it is kept outside the project (a spec extracted from that parser) and
this stand-in is checked against it (check_cli_specs.py). The stand-in accepts a subset: the
options it honours plus those srt-spank's Plan, the lab recipes and the corpus's MI355X SGLang
recipes pass. Each one has exactly the real option strings, action, nargs, type, choices and
default, so a check "every stand-in option exists in the real spec with the same shape" holds;
anything else is an argparse error, exit status 2, as in the real program. What the subset cannot
reproduce: a real option the stand-in lacks is refused here (add it to OPTIONS with the spec's
shape), and an abbreviation that is unique among these options may be ambiguous among the real 497.

Shapes worth knowing (all from the spec):
- ``--context-length``, ``--max-prefill-tokens``, ``--max-total-tokens`` use SGLang's
  ``human_readable_int`` ("128k"); the spec records it by name and the check compares it as text,
  so here the type is ``str`` and the server converts (``human_readable_int`` below).
- Deprecated aliases still accepted (server_args.py @ 001067ff): ``--cuda-graph-max-bs``
  stores into ``cuda_graph_max_bs_decode``, ``--cuda-graph-bs`` (nargs +) into
  ``cuda_graph_bs_decode``, ``--disable-cuda-graph`` is a store_true; the real actions also log a
  deprecation warning, which the server does (``deprecation_warnings``).
- ``--reasoning-parser`` / ``--tool-call-parser`` take choices from plugin registries the spec
  does not resolve: any text here.
- ``--config FILE.yaml`` (merged into argv before parsing by the real program) is not supported.
"""

import argparse

# (option strings, add_argument keyword arguments), in the order of the real parser.
OPTIONS = [
    (['--model-path', '--model'], dict(type=str, required=True)),
    (['--tokenizer-path'], dict(type=str, default=None)),
    (['--tokenizer-worker-num'], dict(type=int, default=1)),
    (['--load-format'], dict(type=str, choices=['auto', 'pt', 'safetensors', 'npcache', 'dummy', 'sharded_state', 'presharded', 'gguf', 'expert_pack', 'bitsandbytes', 'mistral', 'layered', 'flash_rl', 'remote', 'remote_instance', 'fastsafetensors', 'private', 'runai_streamer'], default='auto')),
    (['--trust-remote-code'], dict(action='store_true', default=False)),
    (['--context-length'], dict(type=str, default=None)),
    (['--revision'], dict(type=str, default=None)),
    (['--model-impl'], dict(type=str, default='auto')),
    (['--dtype'], dict(type=str, choices=['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'], default='auto')),
    (['--quantization'], dict(type=str, choices=['awq', 'fp8', 'mxfp8', 'gptq', 'marlin', 'gptq_marlin', 'awq_marlin', 'bitsandbytes', 'gguf', 'modelopt', 'modelopt_fp8', 'modelopt_fp4', 'nvfp4_online', 'modelopt_mixed', 'petit_nvfp4', 'w8a8_int8', 'w8a8_fp8', 'moe_wna16', 'w4afp8', 'mxfp4', 'auto-round', 'auto-round-int8', 'compressed-tensors', 'modelslim', 'mxfp_w4a8', 'quark', 'quark_int4fp8_moe', 'quark_mxfp4', 'mlx_q4', 'mlx_q8', 'unquant', 'humming'], default=None)),
    (['--kv-cache-dtype'], dict(type=str, choices=['auto', 'fp8_e5m2', 'fp8_e4m3', 'mxfp8', 'bf16', 'bfloat16', 'nvfp4', 'fp4_mx_block16', 'fp4_e2m1'], default='auto')),
    (['--mem-fraction-static'], dict(type=float, default=None)),
    (['--max-running-requests'], dict(type=int, default=None)),
    (['--max-total-tokens'], dict(type=str, default=None)),
    (['--chunked-prefill-size'], dict(type=int, default=None)),
    (['--max-prefill-tokens'], dict(type=str, default=16384)),
    (['--schedule-policy'], dict(type=str, choices=['lpm', 'random', 'fcfs', 'dfs-weight', 'lof', 'priority', 'routing-key'], default='fcfs')),
    (['--schedule-conservativeness'], dict(type=float, default=1.0)),
    (['--page-size'], dict(type=int, default=None)),
    (['--swa-full-tokens-ratio'], dict(type=float, default=0.8)),
    (['--disable-radix-cache'], dict(action='store_true', default=False)),
    (['--disable-overlap-schedule'], dict(action='store_true', default=False)),
    (['--num-continuous-decode-steps'], dict(type=int, default=1)),
    (['--nccl-port'], dict(type=int, default=None)),
    (['--dist-init-addr', '--nccl-init-addr'], dict(type=str, default=None)),
    (['--nnodes'], dict(type=int, default=1)),
    (['--node-rank'], dict(type=int, default=0)),
    (['--tp-size', '--tensor-parallel-size'], dict(type=int, default=1)),
    (['--dp-size', '--data-parallel-size'], dict(type=int, default=1)),
    (['--load-balance-method'], dict(type=str, choices=['auto', 'round_robin', 'follow_bootstrap_room', 'total_requests', 'total_tokens'], default='auto')),
    (['--enable-dp-attention'], dict(action='store_true', default=False)),
    (['--enable-dp-attention-local-control-broadcast'], dict(action='store_true', default=False)),
    (['--enable-dp-lm-head'], dict(action='store_true', default=False)),
    (['--base-gpu-id'], dict(type=int, default=0)),
    (['--gpu-id-step'], dict(type=int, default=1)),
    (['--random-seed'], dict(type=int, default=None)),
    (['--watchdog-timeout'], dict(type=float, default=300)),
    (['--host'], dict(type=str, default='127.0.0.1')),
    (['--port'], dict(type=int, default=30000)),
    (['--grpc-port'], dict(type=int, default=None)),
    (['--skip-server-warmup'], dict(action='store_true', default=False)),
    (['--served-model-name'], dict(type=str, default=None)),
    (['--chat-template'], dict(type=str, default=None)),
    (['--enable-cache-report'], dict(action='store_true', default=False)),
    (['--stream-interval'], dict(type=int, default=1)),
    (['--log-level'], dict(type=str, default='info')),
    (['--log-level-http'], dict(type=str, default=None)),
    (['--enable-metrics'], dict(action='store_true', default=False)),
    (['--decode-log-interval'], dict(type=int, default=40)),
    (['--kv-events-config'], dict(type=str, default=None)),
    (['--attention-backend'], dict(type=str, choices=['triton', 'torch_native', 'flex_attention', 'dsa', 'nsa', 'dsv4', 'compressed', 'cutlass_mla', 'fa3', 'fa4', 'flashinfer', 'flashmla', 'trtllm_mla', 'cutedsl_mla', 'tokenspeed_mla', 'trtllm_mha', 'dual_chunk_flash_attn', 'hpc_ops', 'minicpm_flashattn', 'minicpm_flashinfer', 'aiter', 'wave', 'intel_amx', 'ascend', 'intel_xpu'], default=None)),
    (['--cuda-graph-max-bs-decode'], dict(type=int, default=None)),
    (['--cuda-graph-bs-decode'], dict(type=int, nargs='+', default=None)),
    (['--enable-deepseek-v4-fp4-indexer'], dict(action='store_true', default=False)),
    (['--enable-torch-compile'], dict(action='store_true', default=False)),
    (['--speculative-algorithm'], dict(type=str, default=None)),
    (['--speculative-draft-model-path', '--speculative-draft-model'], dict(type=str, default=None)),
    (['--speculative-num-steps'], dict(type=int, default=None)),
    (['--speculative-eagle-topk'], dict(type=int, default=None)),
    (['--speculative-num-draft-tokens'], dict(type=int, default=None)),
    (['--speculative-dspark-block-size'], dict(type=int, default=None)),
    (['--ep-size', '--expert-parallel-size', '--ep'], dict(type=int, default=1)),
    (['--moe-a2a-backend'], dict(type=str, choices=['none', 'deepep', 'mooncake', 'nixl', 'mori', 'ascend_fuseep', 'flashinfer', 'megamoe', 'deepep_v2', 'pplx', 'ascend_tp'], default='none')),
    (['--moe-runner-backend'], dict(type=str, choices=['auto', 'deep_gemm', 'triton', 'triton_kernel', 'flashinfer_trtllm', 'experimental_sgl_trtllm', 'flashinfer_trtllm_routed', 'flashinfer_cutlass', 'flashinfer_mxfp4', 'flashinfer_cutedsl', 'cutlass', 'aiter', 'marlin', 'humming', 'experimental_sgl_marlin', 'hpc_ops', 'megamoe'], default='auto')),
    (['--deepep-mode'], dict(type=str, choices=['auto', 'normal', 'low_latency'], default='auto')),
    (['--ep-num-redundant-experts'], dict(type=int, default=0)),
    (['--enforce-shared-experts-fusion'], dict(action='store_true', default=False)),
    (['--enable-hierarchical-cache'], dict(action='store_true', default=False)),
    (['--hicache-ratio'], dict(type=float, default=None)),
    (['--hicache-write-policy'], dict(type=str, choices=['write_back', 'write_through', 'write_through_selective'], default='write_through')),
    (['--hicache-io-backend'], dict(type=str, choices=['direct', 'kernel', 'kernel_ascend'], default='kernel')),
    (['--hicache-mem-layout'], dict(type=str, choices=['layer_first', 'page_first', 'page_first_direct', 'page_first_kv_split', 'page_head'], default='page_first')),
    (['--hicache-storage-backend'], dict(type=str, choices=['file', 'sim', 'mooncake', 'hf3fs', 'nixl', 'aibrix', 'dynamic', 'eic', 'simm', 'mori', 'shm', 'kvcc'], default=None)),
    (['--hicache-storage-prefetch-policy'], dict(type=str, choices=['best_effort', 'wait_complete', 'timeout'], default='timeout')),
    (['--hicache-storage-backend-extra-config'], dict(type=str, default=None)),
    (['--enable-two-batch-overlap'], dict(action='store_true', default=False)),
    (['--disaggregation-mode'], dict(type=str, choices=['null', 'prefill', 'decode'], default='null')),
    (['--disaggregation-transfer-backend'], dict(type=str, choices=['mooncake', 'nixl', 'ascend', 'fake', 'mori', 'mooncake_tcp'], default='mooncake')),
    (['--disaggregation-bootstrap-port'], dict(type=int, default=8998)),
    (['--disaggregation-ib-device'], dict(type=str, default=None)),
    (['--optimistic-prefill-attempts'], dict(type=int, default=0)),
    (['--reasoning-parser'], dict(type=str, default=None)),
    (['--tool-call-parser'], dict(type=str, default=None)),
    (['--cuda-graph-max-bs'], dict(type=int, dest='cuda_graph_max_bs_decode')),
    (['--cuda-graph-bs'], dict(type=int, nargs='+', dest='cuda_graph_bs_decode')),
    (['--disable-cuda-graph'], dict(action='store_true')),
]

DEPRECATED = {
    "--cuda-graph-max-bs": "--cuda-graph-max-bs-decode",
    "--cuda-graph-bs": "--cuda-graph-bs-decode",
    "--disable-cuda-graph": "--cuda-graph-backend-{decode,prefill}=disabled",
}


def build_parser():
    parser = argparse.ArgumentParser(prog="sglang serve", allow_abbrev=True)
    for names, kwargs in OPTIONS:
        parser.add_argument(*names, **kwargs)
    return parser


def parse_args(argv=None):
    return build_parser().parse_args(argv)


def deprecation_warnings(argv):
    """The warnings SGLang's Deprecated*Action classes log for the deprecated spellings used."""
    out = []
    for token in argv:
        flag = token.split("=", 1)[0]
        if flag in DEPRECATED:
            out.append(f"The argument '{flag}' is deprecated; use '{DEPRECATED[flag]}' instead.")
    return out


def human_readable_int(value):
    """SGLang's human_readable_int: "128k" -> 128000, "1M" -> 1000000, "32768" -> 32768."""
    if value is None or isinstance(value, int):
        return value
    text = str(value).strip()
    scale = {"k": 10**3, "m": 10**6, "g": 10**9}.get(text[-1:].lower())
    if scale:
        return int(float(text[:-1]) * scale)
    return int(text)

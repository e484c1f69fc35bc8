"""What the SGLang stand-in's arguments mean before anything starts: which DP ranks this node
runs and which of them publish KV events (Layout), the limits of SGLang's check_server_args the
lab can meet, the resolution of ``--load-balance-method auto``, and ``--kv-events-config`` (part
of sglang_server.py's stand-in).

Sources (read, not copied): sgl-project/sglang python/sglang/srt/server_args.py @ 001067ff
(check_server_args; load_balance_method ``auto`` resolved to follow_bootstrap_room on a prefill
and round_robin elsewhere; describe_kv_events_publisher: the ``kv_events`` descriptor of
/server_info, block_size = page_size x dcp_size) and python/sglang/srt/disaggregation/kv_events.py
@ 006d053f (the config's keys and defaults: publisher null, endpoint ``tcp://*:5557``).
"""

import json

from sglang_ports import StartupError, split_host_port


class Layout:
    def __init__(self, args):
        self.tp, self.dp, self.nnodes, self.node_rank = args.tp_size, args.dp_size, args.nnodes, args.node_rank
        self.dpa = bool(args.enable_dp_attention)
        self.attn_tp = self.tp // self.dp if self.dpa else self.tp
        self.attn_dp_size = self.dp if self.dpa else 1
        self.gpus_per_node = self.tp // self.nnodes
        lo, hi = self.node_rank * self.gpus_per_node, (self.node_rank + 1) * self.gpus_per_node
        if self.dpa:
            # attention-DP group r spans GPUs [r*attn_tp, (r+1)*attn_tp); its leader publishes.
            self.local = [r for r in range(self.dp)
                          if r * self.attn_tp < hi and (r + 1) * self.attn_tp > lo]
            self.leaders = [r for r in self.local if lo <= r * self.attn_tp < hi]
        elif self.nnodes == 1:
            self.local, self.leaders = list(range(self.dp)), list(range(self.dp))
        else:  # one TP group over the nodes (multi-node DP needs DP attention)
            self.local, self.leaders = [0], [0] if self.node_rank == 0 else []


def check_server_args(args):
    """The limits of SGLang's check_server_args the lab can meet (server_args.py @ 001067ff)."""
    problems = []
    if args.tp_size % args.nnodes != 0:
        problems.append("tp_size must be divisible by number of nodes")
    if args.nnodes > 1 and args.dp_size > 1 and not args.enable_dp_attention:
        problems.append("multi-node data parallel is not supported unless dp attention!")
    if args.enable_dp_attention and args.tp_size % args.dp_size != 0:
        problems.append("tp_size must be divisible by dp_size with dp attention")
    if args.tokenizer_worker_num < 1:
        problems.append("Tokenizer worker num must >= 1")
    if not 0 <= args.node_rank < args.nnodes:
        problems.append("node_rank must be in [0, nnodes)")
    if args.nnodes > 1 and not args.dist_init_addr:
        problems.append("--dist-init-addr is required when nnodes > 1")
    if problems:
        raise StartupError("AssertionError: " + problems[0])


def resolve_load_balance(args):
    if args.load_balance_method != "auto":
        return args.load_balance_method
    return "follow_bootstrap_room" if args.disaggregation_mode == "prefill" else "round_robin"


def parse_kv_events(args):
    """(config dict, descriptor for /server_info or None) from --kv-events-config."""
    if not args.kv_events_config:
        return None, None
    cfg = json.loads(args.kv_events_config)  # a bad JSON is a traceback, as in SGLang
    cfg.setdefault("publisher", "null")
    cfg.setdefault("endpoint", "tcp://*:5557")
    cfg.setdefault("topic", "")
    descriptor = None
    endpoint = cfg["endpoint"]
    if cfg["publisher"] == "zmq" and endpoint.startswith("tcp://"):
        host, port = split_host_port(endpoint[len("tcp://"):])
        descriptor = {"publisher": "zmq", "endpoint_host": host, "endpoint_port_base": port,
                      "topic": cfg["topic"], "block_size": (args.page_size or 1) * 1,  # x dcp_size 1
                      "dp_size": args.dp_size if args.enable_dp_attention else 1}
    return cfg, descriptor

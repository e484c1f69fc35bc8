"""The ATOM stand-in's timing model: how long a prefill, a KV transfer and a decode step take.

Not a measurement of any GPU: a small model, so that the lab's numbers move the way a real
engine's do when the load grows (throughput per GPU rises and flattens, TPOT and TTFT rise), and
so that the lab's picture is not noise. Every wait is an asyncio sleep; nothing spins.

- **Decode step** (per DP rank): ``TOKEN_MS + SEQ_US * (batch - 1)``, where batch is the number
  of sequences the rank is decoding at that moment. A real decode step reads every sequence's
  KV cache, so it grows with the batch; a batch of one costs ``SRT_STANDIN_TOKEN_MS``, which is
  what the cluster tests set to lengthen a run (``SRT_STANDIN_TOKEN_MS=300`` still means "at
  least 300 ms per token").
- **Prefill** (per DP rank, first come first served): ``PREFILL_MS + PREFILL_US_PER_TOKEN *
  prompt_tokens``. Prefill is compute-bound, so a rank works through its queue of prompts one at a
  time: TTFT grows with the tokens waiting ahead of a request.
- **KV transfer** (per decode server, the link is shared by its ranks, first come first served):
  ``prompt_tokens * KV_BYTES_PER_TOKEN`` over ``KV_GBPS`` (default by transport: TCP slower
  than RDMA). A decode rank starts a request's first step only after its KV has arrived.

Knobs (environment; defaults are scaled so that the 2P1D lab twin's c256..c2048 sweep stays
inside the lab's two cores with room to spare, i.e. the model and not the CPU sets the pace):

| variable | default |
|---|---|
| SRT_STANDIN_TOKEN_MS | 2 (decode step at batch 1) |
| SRT_STANDIN_SEQ_US | 120 (each further sequence in the rank's batch) |
| SRT_STANDIN_PREFILL_MS | 5 (a prefill pass's fixed cost) |
| SRT_STANDIN_PREFILL_US_PER_TOKEN | 20 |
| SRT_STANDIN_KV_BYTES_PER_TOKEN | 70000 (DeepSeek-V4's compressed KV, order of magnitude) |
| SRT_STANDIN_KV_GBPS | 10 for protocol tcp, 100 for rdma (gigabits per second) |
"""

import asyncio
import os


def _env_float(name, default, env):
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SystemExit(f"stand-in: {name}={raw!r} is not a number")
    if value < 0:
        raise SystemExit(f"stand-in: {name}={raw!r} must not be negative")
    return value


class Queue:
    """A resource served first come first served: each use occupies it for its cost."""

    def __init__(self):
        self.free_at = 0.0

    async def occupy(self, cost_s):
        loop = asyncio.get_running_loop()
        now = loop.time()
        done = max(now, self.free_at) + cost_s
        self.free_at = done
        await asyncio.sleep(done - now)


class TimingModel:
    def __init__(self, protocol="tcp", env=None):
        env = os.environ if env is None else env
        self.token_s = _env_float("SRT_STANDIN_TOKEN_MS", 2.0, env) / 1e3
        self.seq_s = _env_float("SRT_STANDIN_SEQ_US", 120.0, env) / 1e6
        self.prefill_s = _env_float("SRT_STANDIN_PREFILL_MS", 5.0, env) / 1e3
        self.prefill_token_s = _env_float("SRT_STANDIN_PREFILL_US_PER_TOKEN", 20.0, env) / 1e6
        self.kv_bytes_per_token = _env_float("SRT_STANDIN_KV_BYTES_PER_TOKEN", 70000.0, env)
        gbps = _env_float("SRT_STANDIN_KV_GBPS", 100.0 if protocol == "rdma" else 10.0, env)
        self.kv_bytes_per_s = gbps * 1e9 / 8 if gbps > 0 else 0.0
        self.kv_link = Queue()  # the decode server's NIC(s), shared by its ranks

    def decode_step_s(self, batch):
        return self.token_s + self.seq_s * max(0, batch - 1)

    def prefill_cost_s(self, prompt_tokens):
        return self.prefill_s + self.prefill_token_s * max(0, prompt_tokens)

    def kv_cost_s(self, prompt_tokens):
        if self.kv_bytes_per_s <= 0:
            return 0.0
        return max(0, prompt_tokens) * self.kv_bytes_per_token / self.kv_bytes_per_s

    async def prefill(self, rank_queue, prompt_tokens):
        await rank_queue.occupy(self.prefill_cost_s(prompt_tokens))

    async def kv_transfer(self, prompt_tokens):
        await self.kv_link.occupy(self.kv_cost_s(prompt_tokens))

    async def decode_step(self, batch):
        await asyncio.sleep(self.decode_step_s(batch))

#!/usr/bin/python3
"""Stand-in for `aiperf profile --scenario inferencex-agentx-mvp ...`, the AgentX trace replay
that InferenceX's benchmarks/srt_agentic.sh runs (SemiAnalysisAI/InferenceX benchmarks/srt_agentic.sh
@ 4fa2a2ff and the aiperf command line it builds, read, not copied).

It is NOT aiperf. It accepts only the options srt_agentic.sh passes (aiperf's spellings, listed
in build_parser; anything else is refused, exit 2) and writes the artifacts InferenceX's
processor reads, in aiperf's shapes:
  <artifact-dir>/profile_export.jsonl          one record per request
  <artifact-dir>/profile_export_aiperf.json    run summary (+ metadata.dataset)
  <artifact-dir>/server_metrics_export.json    /metrics scraped before and after (+ .csv)
  <artifact-dir>/standin_traces.jsonl          the synthetic trace ({"id","requests":[{"out"}]})

What it does, and what differs from aiperf:
- The trace is synthetic and deterministic from --random-seed (no semianalysis_cc_traces, no HF
  download; --public-dataset is recorded, not fetched): N conversations of several turns; each
  turn's prompt is the conversation so far (earlier user turns and assistant answers) plus a
  new user message, so the input grows turn by turn as in coding-agent traces. Tokens are
  words, as the lab's stand-in engines count them. Output lengths are small, from the trace.
- --concurrency sessions; a session replays one conversation turn by turn, then takes the next
  one. A conversation starts at a turn drawn in [--trajectory-start-min-ratio, -max-ratio) of
  its length (the earlier turns are in its first prompt). Every request of a conversation
  carries the same `x-correlation-id` header (and X-Dynamo-Session-Id with
  AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=true).
- Streaming chat completions (`--endpoint-type chat`, /v1/chat/completions; `completions` or
  --custom-endpoint for another path), `max_tokens` from the trace and `ignore_eos: true` so
  the stand-in engines produce exactly that many tokens.
- Warmup: the first --warmup-request-count requests (default: the concurrency) are phase
  "warmup"; profiling starts when they have all finished, or --warmup-grace-period seconds
  after the first one started. Warmup records are written, marked, and not profiled.
- Profiling lasts --benchmark-duration seconds; then no request starts, in-flight ones get
  --benchmark-grace-period seconds (default 0 here: aiperf's default is longer) and are then
  cancelled: their record has was_cancelled=true, cancellation_time_ns and an error of type
  "RequestCancellationError" (the aggregate counts them as dropped, not as failed).
- --failed-request-threshold is live: once 10 profiling requests have ended and more than
  that share failed, the run stops, RUN_INVALID.json is written and the exit status is 1.
- AIPERF_REQUIRED_SERVER_METRIC_PREFIX (e.g. "atom:"): if no scraped metric has that prefix
  the run still writes its artifacts, then says so and exits 1.
- Every wait is bounded: --request-timeout-seconds per request, and an overall deadline.

Modules: agentx_trace.py (the synthetic trace), agentx_request.py (one request and its record's
metrics), agentx_metrics.py (server metrics scraped before and after), agentx_artifacts.py (the
files written), and this file (the sessions, warmup and profiling window, the command line, main).
"""

import argparse
import asyncio
import os
import random
import sys
import time
import uuid

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from agentx_artifacts import write_artifacts  # noqa: E402
from agentx_metrics import scrape  # noqa: E402
from agentx_request import Sender  # noqa: E402
from agentx_trace import build_trace, prompt_words  # noqa: E402
from standin_common import client_session, raise_nofile_limit  # noqa: E402

SCENARIOS = ("inferencex-agentx-mvp", "agentx", "agentx-fast")
LIVE_THRESHOLD_MIN_REQUESTS = 10


class Replay(Sender):
    def __init__(self, args):
        self.args = args
        self.traces = build_trace(args.random_seed, args.num_conversations,
                                  args.max_context_length)
        self.rng = random.Random(args.random_seed + 1)
        self.records = []
        self.next_conversation = 0
        self.session_num = 0
        self.warmup_target = (args.concurrency if args.warmup_request_count is None
                              else args.warmup_request_count)
        self.warmup_started = 0
        self.warmup_done = 0
        self.profiling = asyncio.Event()
        self.profile_start_ns = None
        self.profile_start_mono = None
        self.stop = asyncio.Event()   # no request starts after this
        self.abort = asyncio.Event()  # in-flight requests are cancelled
        self.threshold_tripped = None
        self.inflight = {}            # task -> record metadata being filled
        self.endpoint = args.custom_endpoint or (
            "/v1/chat/completions" if args.endpoint_type == "chat" else "/v1/completions")
        self.api_url = args.url.rstrip("/") + self.endpoint
        if self.warmup_target <= 0:
            self.start_profiling()

    def start_profiling(self):
        if self.profiling.is_set():
            return
        self.profile_start_ns = time.time_ns()
        self.profile_start_mono = time.monotonic()
        self.profiling.set()
        print(f"profiling: started ({self.warmup_done}/{self.warmup_target} warmup requests "
              f"finished), {self.args.benchmark_duration:g} s", flush=True)

    def take_conversation(self):
        index = self.next_conversation % len(self.traces)
        self.next_conversation += 1
        self.session_num += 1
        return index, self.session_num - 1

    async def phase_for_next_request(self):
        """'warmup', 'profiling', or None when no further request may start."""
        if self.stop.is_set():
            return None
        if not self.profiling.is_set() and self.warmup_started < self.warmup_target:
            self.warmup_started += 1
            return "warmup"
        stop_wait = asyncio.ensure_future(self.stop.wait())
        prof_wait = asyncio.ensure_future(self.profiling.wait())
        try:
            await asyncio.wait({stop_wait, prof_wait}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop_wait.cancel()
            prof_wait.cancel()
        return None if self.stop.is_set() else "profiling"

    async def session(self, http, worker):
        while not self.stop.is_set():
            conv_index, session_num = self.take_conversation()
            trace = self.traces[conv_index]
            n = len(trace["turns"])
            lo = int(self.args.trajectory_start_min_ratio * n)
            hi = int(self.args.trajectory_start_max_ratio * n)
            first = min(n - 1, self.rng.randint(lo, max(lo, hi - 1))) if hi > lo else min(lo, n - 1)
            correlation_id = str(uuid.uuid4())
            for turn_index in range(first, n):
                phase = await self.phase_for_next_request()
                if phase is None:
                    return
                await self.one_request(http, worker, conv_index, trace, turn_index, session_num,
                                       correlation_id, phase)

    async def one_request(self, http, worker, conv_index, trace, turn_index, session_num,
                          correlation_id, phase):
        turn = trace["turns"][turn_index]
        isl_words, _cached = prompt_words(trace, turn_index)
        meta = {"session_num": session_num, "x_correlation_id": correlation_id,
                "conversation_id": trace["id"], "turn_index": turn_index,
                "request_start_ns": None, "request_ack_ns": None, "request_end_ns": None,
                "worker_id": f"worker_{worker}", "benchmark_phase": phase,
                "was_cancelled": False, "cancellation_time_ns": None}
        record = {"metadata": meta, "metrics": {}, "error": None}
        task = asyncio.ensure_future(self.send(http, conv_index, trace, turn_index, turn,
                                               isl_words, correlation_id, record))
        abort_wait = asyncio.ensure_future(self.abort.wait())
        try:
            await asyncio.wait({task, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            abort_wait.cancel()
        if not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
            now = time.time_ns()
            meta["was_cancelled"] = True
            meta["cancellation_time_ns"] = now
            meta["request_end_ns"] = now
            record["metrics"] = {}
            record["error"] = {"code": 499, "type": "RequestCancellationError",
                               "message": "in flight at the end of the benchmark window"}
        self.records.append(record)
        if phase == "warmup":
            self.warmup_done += 1
            if self.warmup_done >= self.warmup_target:
                self.start_profiling()
        else:
            self.check_live_threshold()

    def check_live_threshold(self):
        threshold = self.args.failed_request_threshold
        if threshold is None or self.threshold_tripped:
            return
        ended = [r for r in self.records if r["metadata"]["benchmark_phase"] == "profiling"
                 and not r["metadata"]["was_cancelled"]]
        if len(ended) < LIVE_THRESHOLD_MIN_REQUESTS:
            return
        failed = sum(1 for r in ended if r["error"])
        if failed / len(ended) > threshold:
            self.threshold_tripped = (f"failed-request threshold exceeded: {failed}/{len(ended)} "
                                      f"profiling requests failed (> {threshold:g})")
            print(self.threshold_tripped, file=sys.stderr, flush=True)
            self.stop.set()
            self.abort.set()

    async def window(self):
        """Ends profiling after --benchmark-duration, with the warmup grace bound before it."""
        args = self.args
        try:
            await asyncio.wait_for(self.profiling.wait(), args.warmup_grace_period)
        except asyncio.TimeoutError:
            print(f"warmup: {self.warmup_done}/{self.warmup_target} finished within the "
                  f"{args.warmup_grace_period:g} s grace period; profiling starts anyway",
                  flush=True)
            self.start_profiling()
        remaining = args.benchmark_duration - (time.monotonic() - self.profile_start_mono)
        try:
            await asyncio.wait_for(self.stop.wait(), max(0.0, remaining))
        except asyncio.TimeoutError:
            pass
        self.stop.set()
        try:
            await asyncio.wait_for(self.abort.wait(), args.benchmark_grace_period)
        except asyncio.TimeoutError:
            pass
        self.abort.set()

    async def run(self):
        args = self.args
        urls = args.server_metrics or []
        deadline = (args.warmup_grace_period + args.benchmark_duration
                    + args.benchmark_grace_period + 60)
        async with client_session() as http:
            before = await scrape(http, urls, 10)
            started = time.time_ns()
            sessions = [asyncio.ensure_future(self.session(http, w))
                        for w in range(args.concurrency)]
            window = asyncio.ensure_future(self.window())
            done, pending = await asyncio.wait(sessions, timeout=deadline)
            timed_out = bool(pending)
            for task in pending:
                task.cancel()
            window.cancel()
            await asyncio.gather(*pending, window, return_exceptions=True)
            for task in done:
                if task.exception() is not None:
                    raise task.exception()
            ended = time.time_ns()
            after = await scrape(http, urls, 10)
        if timed_out:
            print(f"overall deadline ({deadline:g} s) passed; sessions cancelled", file=sys.stderr)
        return started, ended, before, after


def build_parser():
    p = argparse.ArgumentParser(
        prog="agentx_replay.py",
        description="srt-spank lab stand-in for `aiperf profile` AgentX trace replay (not aiperf; "
                    "only the options InferenceX's srt_agentic.sh passes).")
    p.add_argument("subcommand", choices=["profile"])
    a = p.add_argument
    a("--scenario", default="inferencex-agentx-mvp", choices=SCENARIOS)
    a("--url", "-u", required=True)
    a("--model", "-m", required=True)
    a("--tokenizer", default=None, help="accepted; the stand-in counts words")
    a("--tokenizer-trust-remote-code", action="store_true")
    a("--endpoint-type", default="chat", choices=["chat", "completions"])
    a("--custom-endpoint", default=None)
    a("--streaming", action="store_true", help="accepted; the replay always streams")
    a("--concurrency", type=int, required=True)
    a("--benchmark-duration", type=float, required=True)
    a("--benchmark-grace-period", type=float, default=0.0)
    a("--random-seed", type=int, default=42)
    a("--warmup-grace-period", type=float, default=1800.0)
    a("--warmup-request-count", type=int, default=None)
    a("--failed-request-threshold", type=float, default=None)
    a("--request-timeout-seconds", type=float, default=600.0)
    a("--use-server-token-count", action="store_true")
    a("--public-dataset", default="semianalysis_cc_traces_weka_062126")
    a("--trajectory-start-min-ratio", type=float, default=0.0)
    a("--trajectory-start-max-ratio", type=float, default=0.0)
    a("--max-context-length", type=int, default=None)
    a("--extra-inputs", nargs="+", default=None)
    a("--server-metrics", nargs="+", default=None)
    a("--artifact-dir", "--output-artifact-dir", dest="artifact_dir", required=True)
    a("--num-conversations", type=int, default=64,
      help="stand-in only: size of the synthetic trace")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.concurrency < 1 or args.benchmark_duration <= 0:
        print("error: --concurrency must be >= 1 and --benchmark-duration > 0", file=sys.stderr)
        return 2
    if not 0 <= args.trajectory_start_min_ratio <= args.trajectory_start_max_ratio <= 1:
        print("error: need 0 <= --trajectory-start-min-ratio <= --trajectory-start-max-ratio <= 1",
              file=sys.stderr)
        return 2
    raise_nofile_limit()
    print(f"agentx_replay (stand-in for aiperf profile --scenario {args.scenario}): "
          f"url={args.url} model={args.model} concurrency={args.concurrency} "
          f"duration={args.benchmark_duration:g}s seed={args.random_seed}", flush=True)
    replay = None

    async def go():
        nonlocal replay
        replay = Replay(args)
        return await replay.run()

    started, ended, before, after = asyncio.run(go())
    summary, export = write_artifacts(args, replay, started, ended, before, after)
    recs = replay.records
    print(f"records: {len(recs)} total, "
          f"{summary['warmup_request_count']} warmup, {summary['request_count']} profiled ok, "
          f"{summary['error_request_count']} failed, {summary['cancelled_request_count']} "
          f"cancelled; duration {summary['benchmark_duration']:.2f} s", flush=True)
    errors = [r["error"] for r in recs if r["error"] and not r["metadata"]["was_cancelled"]]
    if errors:
        print(f"first error: {errors[0]}", file=sys.stderr, flush=True)
    rc = 0
    if replay.threshold_tripped:
        rc = 1
    prefix = os.environ.get("AIPERF_REQUIRED_SERVER_METRIC_PREFIX", "")
    if prefix:
        if not any(name.startswith(prefix) for name in export["metrics"]):
            scraped = ", ".join(f"{e['url']} ({e['error'] or 'ok'})" for e in export["endpoints"])
            print(f"error: AIPERF_REQUIRED_SERVER_METRIC_PREFIX={prefix!r}: no scraped server "
                  f"metric has that prefix (endpoints: {scraped or 'none given'})",
                  file=sys.stderr, flush=True)
            rc = 1
    print(f"artifacts: {args.artifact_dir}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Stand-in for `aiperf profile --scenario inferencex-agentx-mvp ...`, the AgentX trace replay
that InferenceX's benchmarks/srt_agentic.sh runs (inferencex-runner.md (e)).

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
"""

import argparse
import asyncio
import csv
import json
import math
import os
import random
import re
import sys
import time
import uuid

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import aiohttp  # noqa: E402

from standin_common import client_session, raise_nofile_limit  # noqa: E402

SCENARIOS = ("inferencex-agentx-mvp", "agentx", "agentx-fast")
LIVE_THRESHOLD_MIN_REQUESTS = 10


# ---------------------------------------------------------------------------------------
# the synthetic trace
# ---------------------------------------------------------------------------------------

def build_trace(seed, num_conversations, max_context_length=None):
    """[{id, turns: [{user: words, out: n}]}]: deterministic from the seed."""
    rng = random.Random(seed)
    traces = []
    for c in range(num_conversations):
        turns = []
        n_turns = rng.randint(3, 7)
        for t in range(n_turns):
            new_words = rng.randint(150, 400) if t == 0 else rng.randint(20, 120)
            turns.append({"user": new_words, "out": rng.randint(4, 24)})
        traces.append({"id": f"standin-trace-{seed}-{c:04d}", "turns": turns})
    if max_context_length:
        for trace in traces:  # drop the turns whose prompt + answer would not fit
            total, kept = 0, []
            for turn in trace["turns"]:
                total += turn["user"]
                if total + turn["out"] > max_context_length:
                    break
                kept.append(turn)
                total += turn["out"]
            trace["turns"] = kept or trace["turns"][:1]
    return traces


def user_text(conv_index, turn_index, words):
    return " ".join(f"c{conv_index}t{turn_index}w{i}" for i in range(words))


def assistant_text(conv_index, turn_index, words):
    return " ".join(f"c{conv_index}t{turn_index}a{i}" for i in range(words))


def messages_for(conv_index, trace, turn_index):
    """The conversation so far (user, assistant, ...) plus turn turn_index's user message."""
    messages = []
    for t in range(turn_index + 1):
        turn = trace["turns"][t]
        messages.append({"role": "user", "content": user_text(conv_index, t, turn["user"])})
        if t < turn_index:
            messages.append({"role": "assistant",
                             "content": assistant_text(conv_index, t, turn["out"])})
    return messages


def prompt_words(trace, turn_index):
    """(input words, words shared with the previous turn's prompt + answer)."""
    turns = trace["turns"]
    total = sum(t["user"] for t in turns[:turn_index + 1]) + sum(t["out"] for t in turns[:turn_index])
    cached = total - turns[turn_index]["user"] if turn_index else 0
    return total, cached


# ---------------------------------------------------------------------------------------
# server metrics
# ---------------------------------------------------------------------------------------

_SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


def parse_prometheus(text):
    """{(name, labels-tuple): value}, {family: type}."""
    samples, types = {}, {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) >= 4:
                types[parts[2]] = parts[3]
            continue
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        labels = ()
        if m.group(2):
            labels = tuple(sorted(re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"', m.group(2))))
        try:
            samples[(m.group(1), labels)] = float(m.group(3))
        except ValueError:
            continue
    return samples, types


async def scrape(session, urls, timeout):
    out = {}
    for url in urls:
        try:
            async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout)) as resp:
                body = await resp.text()
                if resp.status != 200:
                    out[url] = (None, None, f"HTTP {resp.status}")
                    continue
                samples, types = parse_prometheus(body)
                out[url] = (samples, types, None)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            out[url] = (None, None, f"{type(exc).__name__}: {exc}")
    return out


def family_type(name, types):
    if name in types:
        return types[name]
    for suffix in ("_total", "_sum", "_count", "_bucket", "_created"):
        if name.endswith(suffix) and name[:-len(suffix)] in types:
            return types[name[:-len(suffix)]]
    return "untyped"


def server_metrics_export(urls, before, after):
    endpoints, metrics = [], {}
    for url in urls:
        b_samples, b_types, b_err = before.get(url, (None, None, "not scraped"))
        a_samples, a_types, a_err = after.get(url, (None, None, "not scraped"))
        endpoints.append({"url": url, "scraped_before": b_err is None,
                          "scraped_after": a_err is None, "error": a_err or b_err})
        types = dict(b_types or {}, **(a_types or {}))
        keys = set(b_samples or {}) | set(a_samples or {})
        for name, labels in sorted(keys):
            start = (b_samples or {}).get((name, labels))
            end = (a_samples or {}).get((name, labels))
            kind = family_type(name, types)
            stats = {"start": start, "end": end}
            if kind == "counter" and start is not None and end is not None:
                stats["delta"] = end - start
            if end is not None:
                stats["total"] = end
            entry = metrics.setdefault(name, {"type": kind, "series": []})
            entry["series"].append({"endpoint": url, "labels": dict(labels), "stats": stats})
    return {"endpoints": endpoints, "metrics": metrics}


# ---------------------------------------------------------------------------------------
# the replay
# ---------------------------------------------------------------------------------------

class Replay:
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

    async def send(self, http, conv_index, trace, turn_index, turn, isl_words, correlation_id,
                   record):
        args = self.args
        meta, metrics = record["metadata"], record["metrics"]
        payload = {"model": args.model, "stream": True, "max_tokens": turn["out"],
                   "min_tokens": turn["out"], "ignore_eos": True,
                   "stream_options": {"include_usage": True}}
        for item in args.extra_inputs or []:
            key, _, value = item.partition(":")
            try:
                payload[key] = json.loads(value)
            except ValueError:
                payload[key] = value
        messages = messages_for(conv_index, trace, turn_index)
        if self.endpoint.endswith("/chat/completions") or args.endpoint_type == "chat":
            payload["messages"] = messages
        else:
            payload["prompt"] = " ".join(m["content"] for m in messages)
        headers = {"x-correlation-id": correlation_id}
        if os.environ.get("AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID", "").lower() \
                in ("1", "true", "yes"):
            headers["X-Dynamo-Session-Id"] = correlation_id
        if os.environ.get("OPENAI_API_KEY"):
            headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
        start_ns = time.time_ns()
        meta["request_start_ns"] = start_ns
        t0 = time.perf_counter()
        first = last = None
        chunks = 0
        usage = None
        try:
            timeout = aiohttp.ClientTimeout(total=args.request_timeout_seconds)
            async with http.post(self.api_url, json=payload, headers=headers,
                                 timeout=timeout) as resp:
                meta["request_ack_ns"] = time.time_ns()
                if resp.status != 200:
                    body = (await resp.text())[:500]
                    record["error"] = {"code": resp.status, "type": "HTTPStatusError",
                                       "message": f"{resp.status} {resp.reason}: {body}"}
                    return
                async for raw in resp.content:
                    raw = raw.strip()
                    if not raw or not raw.startswith(b"data:"):
                        continue
                    data = raw[5:].strip()
                    if data == b"[DONE]":
                        continue
                    obj = json.loads(data)
                    if obj.get("usage"):
                        usage = obj["usage"]
                    for choice in obj.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content") \
                            if "delta" in choice else choice.get("text")
                        if text:
                            now = time.perf_counter()
                            first = first if first is not None else now
                            last = now
                            chunks += 1
            end = time.perf_counter()
        except asyncio.CancelledError:
            raise
        except asyncio.TimeoutError:
            record["error"] = {"code": None, "type": "RequestTimeoutError",
                               "message": f"no full answer in {args.request_timeout_seconds:g} s"}
            return
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            record["error"] = {"code": None, "type": type(exc).__name__, "message": str(exc)}
            return
        finally:
            meta["request_end_ns"] = time.time_ns()
        if first is None:
            record["error"] = {"code": 200, "type": "EmptyResponseError",
                               "message": "the stream carried no content token"}
            return
        isl = isl_words
        osl = chunks
        if args.use_server_token_count and usage:
            isl = usage.get("prompt_tokens", isl)
            osl = usage.get("completion_tokens", osl)
        ttft_ms = (first - t0) * 1000
        latency_ms = (last - t0) * 1000
        full_ms = (end - t0) * 1000
        metrics["input_sequence_length"] = {"value": isl, "unit": "tokens"}
        metrics["output_sequence_length"] = {"value": osl, "unit": "tokens"}
        metrics["time_to_first_token"] = {"value": ttft_ms, "unit": "ms"}
        metrics["request_latency"] = {"value": latency_ms, "unit": "ms"}
        if osl > 1:
            metrics["inter_token_latency"] = {"value": (latency_ms - ttft_ms) / (osl - 1),
                                              "unit": "ms"}
            metrics["full_response_inter_token_latency"] = {
                "value": (full_ms - ttft_ms) / (osl - 1), "unit": "ms"}

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


# ---------------------------------------------------------------------------------------
# artifacts
# ---------------------------------------------------------------------------------------

def summary_stats(values):
    if not values:
        return None
    s = sorted(values)

    def pct(p):
        rank = (len(s) - 1) * p / 100.0
        lo, hi = math.floor(rank), math.ceil(rank)
        return s[lo] + (s[hi] - s[lo]) * (rank - lo)
    mean = sum(s) / len(s)
    return {"avg": mean, "min": s[0], "max": s[-1], "p50": pct(50), "p90": pct(90),
            "p99": pct(99), "std": math.sqrt(sum((x - mean) ** 2 for x in s) / len(s))}


def write_artifacts(args, replay, started_ns, ended_ns, before, after):
    out = args.artifact_dir
    os.makedirs(out, exist_ok=True)
    records = sorted(replay.records, key=lambda r: r["metadata"]["request_start_ns"] or 0)
    with open(os.path.join(out, "profile_export.jsonl"), "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")
    with open(os.path.join(out, "standin_traces.jsonl"), "w", encoding="utf-8") as f:
        for trace in replay.traces:
            f.write(json.dumps({"id": trace["id"], "requests": [
                {"type": "n", "out": t["out"], "in": t["user"]} for t in trace["turns"]]}) + "\n")
    profiled = [r for r in records if r["metadata"]["benchmark_phase"] == "profiling"
                and not r["metadata"]["was_cancelled"]]
    ok = [r for r in profiled if not r["error"]]
    cache_hits = []
    by_id = {t["id"]: t for t in replay.traces}
    for r in ok:
        total, cached = prompt_words(by_id[r["metadata"]["conversation_id"]],
                                     r["metadata"]["turn_index"])
        cache_hits.append(100.0 * cached / total if total else 0.0)
    duration = 0.0
    if ok:
        duration = (max(r["metadata"]["request_end_ns"] for r in ok)
                    - min(r["metadata"]["request_start_ns"] for r in ok)) / 1e9
    summary = {
        "request_count": len(ok),
        "error_request_count": sum(1 for r in profiled if r["error"]),
        "cancelled_request_count": sum(1 for r in records if r["metadata"]["was_cancelled"]),
        "warmup_request_count": sum(1 for r in records
                                    if r["metadata"]["benchmark_phase"] == "warmup"),
        "benchmark_duration": duration,
        "start_time_ns": started_ns, "end_time_ns": ended_ns,
        "metadata": {
            "generator": "srt-spank stand-in agentx_replay.py (not aiperf)",
            "scenario": args.scenario, "concurrency": args.concurrency,
            "benchmark_duration": args.benchmark_duration, "random_seed": args.random_seed,
            "endpoint": replay.api_url, "was_failed_request_threshold_exceeded":
                bool(replay.threshold_tripped),
            "dataset": {"source_type": "synthetic", "loader": "srt_standin_synthetic_agentx",
                        "requested_public_dataset": args.public_dataset,
                        "random_seed": args.random_seed,
                        "num_dataset_entries": len(replay.traces)},
        },
    }
    for key, metric, unit in (("time_to_first_token", "time_to_first_token", "ms"),
                              ("request_latency", "request_latency", "ms"),
                              ("inter_token_latency", "inter_token_latency", "ms"),
                              ("input_sequence_length", "input_sequence_length", "tokens"),
                              ("output_sequence_length", "output_sequence_length", "tokens")):
        stats = summary_stats([r["metrics"][metric]["value"] for r in ok if metric in r["metrics"]])
        if stats:
            summary[key] = dict(stats, unit=unit)
    if cache_hits:
        summary["theoretical_prefix_cache_hit"] = {
            "unit": "%", "avg": sum(cache_hits) / len(cache_hits), "count": len(cache_hits)}
    with open(os.path.join(out, "profile_export_aiperf.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    urls = args.server_metrics or []
    export = server_metrics_export(urls, before, after)
    with open(os.path.join(out, "server_metrics_export.json"), "w", encoding="utf-8") as f:
        json.dump(export, f, indent=2)
    with open(os.path.join(out, "server_metrics_export.csv"), "w", encoding="utf-8",
              newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["metric", "type", "endpoint", "labels", "start", "end", "delta"])
        for name, entry in sorted(export["metrics"].items()):
            for series in entry["series"]:
                st = series["stats"]
                writer.writerow([name, entry["type"], series["endpoint"],
                                 json.dumps(series["labels"], sort_keys=True), st.get("start"),
                                 st.get("end"), st.get("delta")])
    if replay.threshold_tripped:
        with open(os.path.join(out, "RUN_INVALID.json"), "w", encoding="utf-8") as f:
            json.dump({"reason": replay.threshold_tripped}, f)
    return summary, export


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

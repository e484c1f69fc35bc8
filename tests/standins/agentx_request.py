"""One request of the AgentX replay stand-in (agentx_replay.py): a streaming completion with the
conversation's ``x-correlation-id`` (and X-Dynamo-Session-Id with
AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=true; Authorization from OPENAI_API_KEY),
``max_tokens``/``min_tokens`` from the trace and ``ignore_eos: true``, and the metrics of its
record in aiperf's shape: input/output sequence length (the server's usage counts with
--use-server-token-count), time to first token, request latency, inter-token latency. A non-200
answer, a timeout (--request-timeout-seconds), a transport error or a stream without a content
token is the record's error.
"""

import asyncio
import json
import os
import time

import aiohttp

from agentx_trace import messages_for


class Sender:
    """Replay's request sender (a mixin: uses self.args, self.endpoint, self.api_url)."""

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

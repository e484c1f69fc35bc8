"""The SGLang stand-in's OpenAI endpoints: /v1/completions and /v1/chat/completions, the DP rank
a request goes to, its token budget, streamed and whole answers (part of sglang_server.py's
stand-in; the Server class mixes Completions in).

Sources (read, not copied): sgl-project/sglang python/sglang/srt/managers/
data_parallel_controller.py (LoadBalanceMethod: round_robin, follow_bootstrap_room = room mod
dp_size, total_requests, total_tokens), the scheduler's handle_generate_request (a request's
data_parallel_rank pins its rank; a prefill's max_new_tokens is forced to 1), python/sglang/srt/
entrypoints/http_server.py (the routes).

Requests go round robin over the DP ranks unless the body names one (``data_parallel_rank`` or
``routed_dp_rank``) or, on a prefill, --load-balance-method resolves to follow_bootstrap_room
(room mod dp_size; ``auto`` resolves to that on prefill and to round_robin elsewhere);
total_requests / total_tokens pick the rank with the fewest requests in flight. SSE or not; usage
in the stream only with stream_options.include_usage; a chunk every --stream-interval tokens.
Timing: timing_model.py, as the ATOM stand-in (prefill per rank, KV transfer on decode: rdma for
mori/mooncake, tcp for mooncake_tcp). A decode first does the bootstrap handshake
(sglang_bootstrap.py).
"""

import json
import logging
import time
import uuid

from aiohttp import web

from standin_common import SSE_DONE, sse_frame, start_sse

log = logging.getLogger("sglang")


def openai_error(status, message, err_type="BadRequestError"):
    return web.json_response({"object": "error", "message": message, "type": err_type,
                              "param": None, "code": status}, status=status)


class Completions:
    """Server's generation endpoints (a mixin: uses self.ranks, self.ready, self.mode,
    self.timing, the counters, and bootstrap_handshake / crash_if_due / hang_if_wedged of the other
    mixins)."""

    async def read_body(self, request):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None, openai_error(400, "Invalid JSON body")
        if not isinstance(body, dict):
            return None, openai_error(400, "body must be a JSON object")
        return body, None

    async def completions(self, request):
        body, error = await self.read_body(request)
        if error is not None:
            return error
        prompt = body.get("prompt")
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], list):
            prompt = prompt[0]
        if isinstance(prompt, str):
            tokens = len(prompt.split())
        elif isinstance(prompt, list) and all(isinstance(t, int) for t in prompt):
            tokens = len(prompt)
        else:
            return openai_error(400, "prompt must be a string or a list of token ids")
        limit = body.get("max_tokens")
        return await self.generate(request, body, tokens, "text_completion",
                                   16 if limit is None else int(limit))

    async def chat_completions(self, request):
        body, error = await self.read_body(request)
        if error is not None:
            return error
        messages = body.get("messages")
        if not isinstance(messages, list):
            return openai_error(400, "messages must be a list")
        tokens = sum(len(str(m.get("content", "")).split()) for m in messages if isinstance(m, dict))
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        return await self.generate(request, body, tokens, "chat.completion",
                                   8192 if limit is None else int(limit))

    def pick_rank(self, body):
        for key in ("data_parallel_rank", "routed_dp_rank"):
            value = body.get(key)
            if isinstance(value, int) and 0 <= value < len(self.ranks):
                return self.ranks[value]
        room = body.get("bootstrap_room")
        if self.load_balance == "follow_bootstrap_room" and isinstance(room, int):
            return self.ranks[room % len(self.ranks)]
        if self.load_balance in ("total_requests", "total_tokens"):
            return min(self.ranks, key=lambda r: r.in_flight)
        self.rr = (self.rr + 1) % len(self.ranks)
        return self.ranks[self.rr]

    def budget(self, body, limit):
        if self.mode == "prefill":
            return 1, "length"  # SGLang prefill: max_new_tokens forced to 1
        if self.eos_after and not body.get("ignore_eos") and self.eos_after < limit:
            return self.eos_after, "stop"
        return limit, "length"

    async def generate(self, request, body, prompt_tokens, obj, limit):
        if not self.ready:
            return openai_error(503, "The server is not ready yet", "ServiceUnavailableError")
        if self.mode == "decode":
            try:
                await self.bootstrap_handshake(body)
            except ValueError as exc:
                return openai_error(400, str(exc))
            except RuntimeError as exc:
                log.error("KV bootstrap failed: %s", exc)
                return openai_error(500, str(exc), "InternalServerError")
        rank = self.pick_rank(body)
        n_tokens, finish = self.budget(body, limit)
        self.requests_total += 1
        self.prompt_tokens_total += prompt_tokens
        if rank.requests is not None:
            try:
                rank.requests.put_nowait(("req", prompt_tokens, self.requests_total))
            except Exception:  # noqa: BLE001 - KV events are advisory
                pass
        self.crash_if_due()
        await self.hang_if_wedged()  # SRT_STANDIN_HANG_AFTER_REQUESTS (standin_faults.py)
        request_id = uuid.uuid4().hex
        rank.in_flight += 1
        try:
            if body.get("stream"):
                answer = await self.stream(request, body, request_id, obj, rank, prompt_tokens,
                                           n_tokens, finish)
            else:
                answer = await self.complete(request_id, obj, rank, prompt_tokens, n_tokens, finish)
            self.requests_finished += 1
            return answer
        finally:
            rank.in_flight -= 1

    async def first_token(self, rank, prompt_tokens):
        if self.mode == "decode":
            await self.timing.kv_transfer(prompt_tokens)
        else:
            await self.timing.prefill(rank.prefill_queue, prompt_tokens)

    def choice(self, obj, text, finish):
        if obj == "chat.completion":
            return {"index": 0, "delta": {"role": "assistant", "content": text}, "logprobs": None,
                    "finish_reason": finish, "matched_stop": None}
        return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                "matched_stop": None}

    async def stream(self, request, body, request_id, obj, rank, prompt_tokens, n_tokens, finish):
        chunk_obj = "chat.completion.chunk" if obj == "chat.completion" else "text_completion"
        response = await start_sse(request)
        base = {"id": request_id, "object": chunk_obj, "model": self.model_name}
        interval = max(1, self.args.stream_interval)
        await self.first_token(rank, prompt_tokens)
        rank.decoding += 1
        pending = 0
        try:
            for i in range(n_tokens):
                if i:
                    await self.timing.decode_step(rank.decoding)
                self.generation_tokens_total += 1
                pending += 1
                last = i == n_tokens - 1
                if pending >= interval or last:
                    chunk = dict(base, created=int(time.time()),
                                 choices=[self.choice(obj, " tok" * pending, finish if last else None)])
                    await response.write(sse_frame(chunk))
                    pending = 0
        finally:
            rank.decoding -= 1
        tail = b""
        if (body.get("stream_options") or {}).get("include_usage"):
            tail += sse_frame(dict(base, created=int(time.time()), choices=[], usage={
                "prompt_tokens": prompt_tokens, "completion_tokens": n_tokens,
                "total_tokens": prompt_tokens + n_tokens, "prompt_tokens_details": None}))
        await response.write(tail + SSE_DONE)
        await response.write_eof()
        return response

    async def complete(self, request_id, obj, rank, prompt_tokens, n_tokens, finish):
        started = time.time()
        await self.first_token(rank, prompt_tokens)
        rank.decoding += 1
        try:
            for _ in range(max(0, n_tokens - 1)):
                await self.timing.decode_step(rank.decoding)
        finally:
            rank.decoding -= 1
        self.generation_tokens_total += n_tokens
        text = " tok" * n_tokens
        if obj == "chat.completion":
            choice = {"index": 0, "message": {"role": "assistant", "content": text,
                                              "reasoning_content": None, "tool_calls": None},
                      "logprobs": None, "finish_reason": finish, "matched_stop": None}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                      "matched_stop": None}
        return web.json_response({
            "id": request_id, "object": obj, "created": int(started), "model": self.model_name,
            "choices": [choice],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n_tokens,
                      "total_tokens": prompt_tokens + n_tokens, "prompt_tokens_details": None}})

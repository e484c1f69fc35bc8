"""The vLLM stand-in's OpenAI endpoints: /v1/completions and /v1/chat/completions, body checks,
the DP rank a request goes to, its token budget, streamed and whole answers (part of
vllm_server.py's stand-in; the Server class mixes Completions in).

Shapes as vLLM's OpenAI server (vllm-project/vllm vllm/entrypoints/openai/, read, not copied):
streamed (SSE, usage chunk only with stream_options.include_usage, then [DONE]) or not; a request
naming another model is a 404; the ``X-data-parallel-rank`` request header pins a rank (what vLLM's
OpenAI server reads and what vllm-router sends for --intra-node-data-parallel-size expansions),
an index outside [0, dp) is a 400; otherwise the least loaded rank (vllm_engine_core.Engine.pick).
A prompt plus max_tokens beyond max_model_len is a 400 with vLLM's "maximum context length"
message. Timing: timing_model.py, as the ATOM stand-in uses it (per rank prefill queue and decode
batch).
"""

import asyncio
import json
import time
import uuid

from aiohttp import web

from standin_common import SSE_DONE, sse_frame, start_sse


class RequestError(Exception):
    def __init__(self, status, message, err_type):
        super().__init__(message)
        self.status, self.message, self.err_type = status, message, err_type


def error_response(status, message, err_type="BadRequestError"):
    return web.json_response({"error": {"message": message, "type": err_type, "param": None,
                                        "code": status}}, status=status)


class Completions:
    """Server's generation endpoints (a mixin: uses self.engine, self.served_names,
    self.max_model_len, self.timing, self.eos_after, self.requests_total and the faults)."""

    async def read_body(self, request):
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RequestError(400, "Invalid JSON body", "BadRequestError")
        if not isinstance(body, dict):
            raise RequestError(400, "The request body must be a JSON object", "BadRequestError")
        model = body.get("model")
        if model is not None and model not in self.served_names:
            raise RequestError(404, f"The model `{model}` does not exist.", "NotFoundError")
        return body

    def pick_rank(self, request):
        header = request.headers.get("X-data-parallel-rank")
        if header is None:
            return self.engine.pick()
        try:
            rank = int(header)
        except ValueError:
            raise RequestError(400, f"X-data-parallel-rank {header!r} is not an integer",
                               "BadRequestError")
        if not 0 <= rank < len(self.engine.ranks):
            raise RequestError(400, f"data_parallel_rank {rank} is out of range "
                                    f"[0, {len(self.engine.ranks)}).", "BadRequestError")
        return self.engine.ranks[rank]

    def budget(self, body, prompt_tokens, default):
        limit = body.get("max_completion_tokens")
        if limit is None:
            limit = body.get("max_tokens")
        if limit is None:
            limit = default if default is not None else self.max_model_len - prompt_tokens
        try:
            limit = int(limit)
        except (TypeError, ValueError):
            raise RequestError(400, "max_tokens must be an integer", "BadRequestError")
        if limit < 0 or prompt_tokens + limit > self.max_model_len:
            raise RequestError(400, (
                f"This model's maximum context length is {self.max_model_len} tokens. However, "
                f"you requested {prompt_tokens + limit} tokens ({prompt_tokens} in the messages, "
                f"{limit} in the completion). Please reduce the length of the messages or "
                "completion."), "BadRequestError")
        if self.eos_after and not body.get("ignore_eos") and self.eos_after < limit:
            return self.eos_after, "stop"
        return limit, "length"

    async def completions(self, request):
        try:
            body = await self.read_body(request)
            prompt = body.get("prompt")
            if isinstance(prompt, list):
                prompt = " ".join(str(p) for p in prompt)
            if not isinstance(prompt, str):
                raise RequestError(400, "prompt must be a string or a list", "BadRequestError")
            return await self.generate(request, body, prompt, chat=False)
        except RequestError as exc:
            return error_response(exc.status, exc.message, exc.err_type)

    async def chat_completions(self, request):
        try:
            body = await self.read_body(request)
            messages = body.get("messages")
            if not isinstance(messages, list):
                raise RequestError(400, "messages must be a list", "BadRequestError")
            prompt = " ".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
            return await self.generate(request, body, prompt, chat=True)
        except RequestError as exc:
            return error_response(exc.status, exc.message, exc.err_type)

    async def generate(self, request, body, prompt, chat):
        prompt_tokens = len(prompt.split())
        n_tokens, finish = self.budget(body, prompt_tokens, None if chat else 16)
        rank = self.pick_rank(request)
        name = body.get("model") or self.served_names[0]
        request_id = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
        self.requests_total += 1
        self.crash_if_due()
        await self.hang_if_wedged()
        rank.waiting += 1
        rank.prompt_tokens += prompt_tokens
        admitted = True
        try:
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                response = await start_sse(request)
                await self.timing.prefill(rank.prefill_queue, prompt_tokens)
                rank.waiting -= 1
                admitted = False
                rank.running += 1
                try:
                    await self.stream(response, request_id, name, chat, rank, prompt_tokens,
                                      n_tokens, finish, include_usage)
                finally:
                    rank.running -= 1
                rank.success[finish] += 1
                return response
            await self.timing.prefill(rank.prefill_queue, prompt_tokens)
            rank.waiting -= 1
            admitted = False
            rank.running += 1
            try:
                for _ in range(max(0, n_tokens - 1)):
                    await self.timing.decode_step(rank.running)
            finally:
                rank.running -= 1
            rank.generation_tokens += n_tokens
            rank.success[finish] += 1
            return web.json_response(self.full_body(request_id, name, chat, prompt_tokens,
                                                    n_tokens, finish))
        except (asyncio.CancelledError, ConnectionResetError):
            rank.success["abort"] += 1
            raise
        finally:
            if admitted:
                rank.waiting -= 1

    def full_body(self, request_id, name, chat, prompt_tokens, n_tokens, finish):
        text = " tok" * n_tokens
        if chat:
            choice = {"index": 0, "message": {"role": "assistant", "content": text,
                                              "reasoning_content": None, "tool_calls": []},
                      "logprobs": None, "finish_reason": finish, "stop_reason": None}
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish,
                      "stop_reason": None, "prompt_logprobs": None}
        return {"id": request_id, "object": "chat.completion" if chat else "text_completion",
                "created": int(time.time()), "model": name, "choices": [choice],
                "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens + n_tokens,
                          "completion_tokens": n_tokens, "prompt_tokens_details": None}}

    async def stream(self, response, request_id, name, chat, rank, prompt_tokens, n_tokens,
                     finish, include_usage):
        created = int(time.time())
        obj = "chat.completion.chunk" if chat else "text_completion"

        def chunk(text, reason, first=False):
            if chat:
                delta = {"role": "assistant", "content": text} if first else {"content": text}
                choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}
            else:
                choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": reason,
                          "stop_reason": None}
            return sse_frame({"id": request_id, "object": obj, "created": created, "model": name,
                              "choices": [choice]})

        if chat:  # the role chunk comes first
            await response.write(chunk("", None, first=True))
        for i in range(n_tokens):
            if i:
                await self.timing.decode_step(rank.running)
            rank.generation_tokens += 1
            last = i == n_tokens - 1
            data = chunk(" tok", finish if last else None)
            if last:
                if include_usage:
                    data += sse_frame({"id": request_id, "object": obj, "created": created,
                                       "model": name, "choices": [], "usage": {
                                           "prompt_tokens": prompt_tokens,
                                           "total_tokens": prompt_tokens + n_tokens,
                                           "completion_tokens": n_tokens}})
                data += SSE_DONE
            await response.write(data)
        if n_tokens == 0:
            await response.write(SSE_DONE)
        await response.write_eof()

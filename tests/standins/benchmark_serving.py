#!/usr/bin/python3
"""Stand-in for InferenceX utils/bench_serving/benchmark_serving.py (read at 843c6254).

Same flags (unknown ones refused, exit 2), same flow and printout, same result JSON keys
(including the upstream typo "request_goodput:"), same exit rule (SystemExit "FAIL: request
failure rate ..." when more than 5 % of the prompts fail). Differences, all because there is
no tokenizer or GPU here:
- prompts are N space-separated words and the stand-in servers count words as tokens, so
  input_lens are exact; output tokens come from the stream's usage chunk (as upstream), else
  from the number of content chunks;
- one aiohttp session with the connection limit off instead of one session per request
  (same concurrency, less overhead on a 2-core lab machine); no tqdm bar.
"""

import argparse
import asyncio
import json
import math
import os
import random
import sys
import time
from datetime import datetime

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from standin_common import client_session, raise_nofile_limit  # noqa: E402

OPENAI_COMPLETION_BACKENDS = ("vllm", "lmdeploy", "openai", "scalellm", "sglang")
BACKENDS = ["tgi", "vllm", "lmdeploy", "deepspeed-mii", "openai", "openai-chat",
            "tensorrt-llm", "scalellm", "sglang"]
AIOHTTP_TIMEOUT_S = 6 * 60 * 60  # backend_request_func.AIOHTTP_TIMEOUT
MAX_FAILURE_RATE = 0.05


class RequestOutput:
    __slots__ = ("generated_text", "success", "latency", "output_tokens", "ttft", "itl",
                 "prompt_len", "error")

    def __init__(self, prompt_len):
        self.generated_text = ""
        self.success = False
        self.latency = 0.0
        self.output_tokens = None
        self.ttft = 0.0
        self.itl = []
        self.prompt_len = prompt_len
        self.error = ""


# ---------------------------------------------------------------------------------------
# statistics with numpy's semantics (mean/median/std ddof=0/percentile linear), no numpy
# ---------------------------------------------------------------------------------------

def _mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def _std(xs):
    if not xs:
        return 0.0
    m = _mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def _percentile(xs, p):
    if not xs:
        return 0.0
    s = sorted(xs)
    rank = (len(s) - 1) * p / 100.0
    lo, hi = math.floor(rank), math.ceil(rank)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


# ---------------------------------------------------------------------------------------
# requests
# ---------------------------------------------------------------------------------------

def sample_random_requests(prefix_len, input_len, output_len, num_prompts, range_ratio):
    """Lengths drawn as upstream (uniform in [int(len*ratio), len]); prompts are words."""
    def sample_uniform(length):
        lower = int(length * range_ratio)
        return [random.randint(lower, length) for _ in range(num_prompts)]

    input_lens, output_lens = sample_uniform(input_len), sample_uniform(output_len)
    prefix = " ".join(f"p{i}" for i in range(prefix_len))
    requests = []
    for i in range(num_prompts):
        words = " ".join(f"w{(i + j) % 50000}" for j in range(input_lens[i]))
        prompt = (prefix + " " + words).strip()
        requests.append((prompt, prefix_len + input_lens[i], output_lens[i], None))
    header = f'{"-" * 19}  Input/Output Length Statistics  {"-" * 19}'
    print(header)
    ins = [r[1] for r in requests]
    outs = [r[2] for r in requests]
    print(f" input_lens : min={min(ins):<4d}  max={max(ins):<4d}  mean={_mean(ins):<7.2f}  "
          f"avg_token_mismatch={0.0:<5.2f} ")
    print(f" output_lens: min={min(outs):<4d}  max={max(outs):<4d}  mean={_mean(outs):<7.2f} ")
    print("-" * len(header), "\n")
    return requests


async def request_openai(session, api_url, model, prompt, prompt_len, output_len, args, chat):
    payload = {"model": model, "temperature": 0.0, "max_tokens": output_len, "stream": True,
               "stream_options": {"include_usage": True}}
    if chat:
        payload["messages"] = [{"role": "user", "content": prompt}]
    else:
        payload.update(prompt=prompt, best_of=args.best_of, logprobs=args.logprobs)
    if args.ignore_eos:
        payload["ignore_eos"] = True
    headers = {"Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY')}"}
    output = RequestOutput(prompt_len)
    chunks = 0
    st = time.perf_counter()
    most_recent = st
    try:
        async with session.post(api_url, json=payload, headers=headers) as response:
            if response.status != 200:
                output.error = response.reason or ""
                return output
            first = False
            async for raw in response.content:
                raw = raw.strip()
                if not raw:
                    continue
                chunk = raw.decode("utf-8").removeprefix("data: ")
                if chunk == "[DONE]":
                    continue
                data = json.loads(chunk)
                choices = data.get("choices")
                if choices:
                    text = (choices[0].get("delta") or {}).get("content") if chat \
                        else choices[0].get("text")
                    now = time.perf_counter()
                    if not first:
                        first = True
                        output.ttft = now - st
                    else:
                        output.itl.append(now - most_recent)
                    most_recent = now
                    output.generated_text += text or ""
                    if text:
                        chunks += 1
                elif data.get("usage"):
                    output.output_tokens = data["usage"].get("completion_tokens")
            if first:
                output.success = True
                if output.output_tokens is None:
                    output.output_tokens = chunks  # no tokenizer here: one chunk, one token
            else:
                output.error = ("Never received a valid chunk to calculate TTFT."
                                "This response will be marked as failed!")
            output.latency = most_recent - st
    except Exception as exc:  # noqa: BLE001 - upstream records every failure as an error
        output.success = False
        output.error = f"{type(exc).__name__}: {exc}"
    return output


# ---------------------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------------------

def calculate_metrics(input_requests, outputs, dur_s, percentiles, goodput):
    actual_output_lens, ttfts, tpots, all_tpots, itls, e2els = [], [], [], [], [], []
    total_input = completed = good = 0
    for req, out in zip(input_requests, outputs):
        if not out.success:
            actual_output_lens.append(0)
            continue
        output_len = out.output_tokens or 0
        actual_output_lens.append(output_len)
        total_input += req[1]
        tpot = 0
        if output_len > 1:
            tpot = (out.latency - out.ttft) / (output_len - 1)
            tpots.append(tpot)
        all_tpots.append(tpot)
        itls += out.itl
        ttfts.append(out.ttft)
        e2els.append(out.latency)
        completed += 1
    if goodput:
        series = {"ttft": ttfts, "tpot": all_tpots, "e2el": e2els}
        chosen = [(series[k], v / 1000.0) for k, v in goodput.items()]
        for i in range(completed):
            if all(slo >= values[i] for values, slo in chosen):
                good += 1
    if completed == 0:
        print("UserWarning: All requests failed. This is likely due to a misconfiguration "
              "on the benchmark arguments.", file=sys.stderr)
    total_output = sum(actual_output_lens)
    m = {"completed": completed, "total_input": total_input, "total_output": total_output,
         "request_throughput": completed / dur_s, "request_goodput": good / dur_s,
         "output_throughput": total_output / dur_s,
         "total_token_throughput": (total_input + total_output) / dur_s}
    for name, xs in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        m[f"mean_{name}_ms"] = _mean(xs) * 1000
        m[f"median_{name}_ms"] = _percentile(xs, 50) * 1000
        m[f"std_{name}_ms"] = _std(xs) * 1000
        m[f"percentiles_{name}_ms"] = [(p, _percentile(xs, p) * 1000) for p in percentiles]
    return m, actual_output_lens


# ---------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------

async def benchmark(args, api_url, model_name, input_requests, percentiles, metric_names,
                    goodput):
    if args.backend not in OPENAI_COMPLETION_BACKENDS + ("openai-chat",):
        raise ValueError(f"backend {args.backend!r} is not implemented by the stand-in")
    chat = args.backend == "openai-chat"
    session = client_session(total_timeout=AIOHTTP_TIMEOUT_S)
    try:
        print("Starting initial single prompt test run...")
        test_prompt, test_len, test_out, _mm = input_requests[0]

        def limited(sem):
            async def call(prompt, prompt_len, output_len):
                if sem is None:
                    return await request_openai(session, api_url, model_name, prompt,
                                                prompt_len, output_len, args, chat)
                async with sem:
                    return await request_openai(session, api_url, model_name, prompt,
                                                prompt_len, output_len, args, chat)
            return call

        if args.num_warmups > 0:
            print(f"Warming up with {args.num_warmups} requests...")
            warm = limited(asyncio.Semaphore(args.max_concurrency) if args.max_concurrency
                           else None)
            await asyncio.gather(*[warm(test_prompt, test_len, test_out)
                                   for _ in range(args.num_warmups)])
            print("Warmup completed.")
        distribution = "Poisson process" if args.burstiness == 1.0 else "Gamma distribution"
        print(f"Traffic request rate: {args.request_rate}")
        print(f"Burstiness factor: {args.burstiness} ({distribution})")
        print(f"Maximum request concurrency: {args.max_concurrency}")
        call = limited(asyncio.Semaphore(args.max_concurrency) if args.max_concurrency
                       else None)
        print("Starting main benchmark run...")
        start = time.perf_counter()
        start_unix = time.time()
        tasks = []
        for prompt, prompt_len, output_len, _mm in input_requests:
            tasks.append(asyncio.ensure_future(call(prompt, prompt_len, output_len)))
            if args.request_rate != float("inf"):
                theta = 1.0 / (args.request_rate * args.burstiness)
                await asyncio.sleep(random.gammavariate(args.burstiness, theta))
        outputs = await asyncio.gather(*tasks)
        duration = time.perf_counter() - start
        end_unix = time.time()
    finally:
        await session.close()

    m, actual_output_lens = calculate_metrics(input_requests, outputs, duration, percentiles,
                                              goodput)
    print("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    print("{:<40} {:<10}".format("Successful requests:", m["completed"]))
    print("{:<40} {:<10.2f}".format("Benchmark duration (s):", duration))
    print("{:<40} {:<10}".format("Total input tokens:", m["total_input"]))
    print("{:<40} {:<10}".format("Total generated tokens:", m["total_output"]))
    print("{:<40} {:<10.2f}".format("Request throughput (req/s):", m["request_throughput"]))
    if goodput:
        print("{:<40} {:<10.2f}".format("Request goodput (req/s):", m["request_goodput"]))
    print("{:<40} {:<10.2f}".format("Output token throughput (tok/s):",
                                    m["output_throughput"]))
    print("{:<40} {:<10.2f}".format("Total Token throughput (tok/s):",
                                    m["total_token_throughput"]))
    result = {
        "duration": duration, "benchmark_start_time_unix": start_unix,
        "benchmark_end_time_unix": end_unix, "completed": m["completed"],
        "total_input_tokens": m["total_input"], "total_output_tokens": m["total_output"],
        "request_throughput": m["request_throughput"],
        "request_goodput:": m["request_goodput"] if goodput else None,  # sic, upstream key
        "output_throughput": m["output_throughput"],
        "total_token_throughput": m["total_token_throughput"],
        "input_lens": [o.prompt_len for o in outputs], "output_lens": actual_output_lens,
        "ttfts": [o.ttft for o in outputs], "itls": [o.itl for o in outputs],
        "generated_texts": [o.generated_text for o in outputs],
        "errors": [o.error for o in outputs],
    }
    headers = {"ttft": ("TTFT", "Time to First Token"),
               "tpot": ("TPOT", "Time per Output Token (excl. 1st token)"),
               "itl": ("ITL", "Inter-token Latency"), "e2el": ("E2EL", "End-to-end Latency")}
    for name, (short, header) in headers.items():
        if name not in metric_names:
            continue
        print("{s:{c}^{n}}".format(s=header, n=50, c="-"))
        print("{:<40} {:<10.2f}".format(f"Mean {short} (ms):", m[f"mean_{name}_ms"]))
        print("{:<40} {:<10.2f}".format(f"Median {short} (ms):", m[f"median_{name}_ms"]))
        for key in ("mean", "median", "std"):
            result[f"{key}_{name}_ms"] = m[f"{key}_{name}_ms"]
        for p, value in m[f"percentiles_{name}_ms"]:
            word = str(int(p)) if int(p) == p else str(p)
            print("{:<40} {:<10.2f}".format(f"P{word} {short} (ms):", value))
            result[f"p{word}_{name}_ms"] = value
    print("=" * 50)
    failures = [o.error for o in outputs if not o.success]
    if failures:
        print(f"{len(failures)} request(s) failed; first error: {failures[0]}", file=sys.stderr)
    return result


def parse_goodput(pairs):
    out = {}
    try:
        for pair in pairs or []:
            name, value = pair.split(":")
            out[name] = float(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(
            "Invalid format found for service level objectives. Specify service level "
            "objectives for goodput as \"KEY:VALUE\" pairs, where the key is a metric name, "
            "and the value is a number in milliseconds.") from err
    for name, value in out.items():
        if name not in ("ttft", "tpot", "e2el"):
            raise ValueError(f"Invalid metric name found, {name}: {value}. The service level "
                             "objective name should be one of ['ttft', 'tpot', 'e2el']. ")
        if value < 0:
            raise ValueError(f"Invalid value found, {name}: {value}. The service level "
                             "objective value should be non-negative.")
    return out


def main(args):
    print(args)
    random.seed(args.seed)
    model_id = args.model
    model_name = args.served_model_name or model_id
    tokenizer_id = args.tokenizer if args.tokenizer is not None else args.model
    if args.base_url is not None:
        api_url = f"{args.base_url}{args.endpoint}"
    else:
        api_url = f"http://{args.host}:{args.port}{args.endpoint}"
    if args.dataset_name != "random":
        raise ValueError(f"Unknown dataset: {args.dataset_name}")
    input_requests = sample_random_requests(args.random_prefix_len, args.random_input_len,
                                            args.random_output_len, args.num_prompts,
                                            args.random_range_ratio)
    goodput = parse_goodput(args.goodput)
    result = asyncio.run(benchmark(
        args, api_url, model_name, input_requests,
        [float(p) for p in args.metric_percentiles.split(",")],
        args.percentile_metrics.split(","), goodput))

    if args.save_result:
        current_dt = datetime.now().strftime("%Y%m%d-%H%M%S")
        result_json = {"date": current_dt, "backend": args.backend, "model_id": model_id,
                       "tokenizer_id": tokenizer_id, "best_of": args.best_of,
                       "num_prompts": args.num_prompts}
        for item in args.metadata or []:
            if "=" not in item:
                raise ValueError("Invalid metadata format. Please use KEY=VALUE format.")
            key, value = item.split("=")[:2]
            result_json[key.strip()] = value.strip()
        result_json["request_rate"] = (args.request_rate if args.request_rate < float("inf")
                                       else "inf")
        result_json["burstiness"] = args.burstiness
        result_json["max_concurrency"] = args.max_concurrency
        result_json = {**result_json, **result}
        if not args.save_detailed:
            for field in ("ttfts", "itls", "generated_texts", "errors"):
                result_json.pop(field, None)
        base_model_id = model_id.split("/")[-1]
        conc = f"-concurrency{args.max_concurrency}" if args.max_concurrency is not None else ""
        file_name = f"{args.backend}-{args.request_rate}qps{conc}-{base_model_id}-{current_dt}.json"
        if args.result_filename:
            file_name = args.result_filename
        if args.result_dir:
            file_name = os.path.join(args.result_dir, file_name)
        with open(file_name, "w", encoding="utf-8") as outfile:
            json.dump(result_json, outfile)

    completed = result["completed"]
    failure_rate = 1 - completed / args.num_prompts
    if failure_rate > MAX_FAILURE_RATE:
        raise SystemExit(f"FAIL: request failure rate {failure_rate:.1%} exceeds "
                         f"{MAX_FAILURE_RATE:.0%} threshold "
                         f"({completed}/{args.num_prompts} completed)")


def build_parser():
    p = argparse.ArgumentParser(description="Benchmark the online serving throughput.")
    a = p.add_argument
    a("--backend", type=str, default="vllm", choices=BACKENDS)
    a("--base-url", type=str, default=None)
    a("--host", type=str, default="127.0.0.1")
    a("--port", type=int, default=8000)
    a("--endpoint", type=str, default="/v1/completions")
    a("--dataset-name", type=str, default="sharegpt", choices=["random"])
    a("--dataset-path", type=str, default=None)
    a("--max-concurrency", type=int, default=None)
    a("--model", type=str, required=True)
    a("--tokenizer", type=str)
    a("--best-of", type=int, default=1)
    a("--use-beam-search", action="store_true")
    a("--num-prompts", type=int, default=1000)
    a("--logprobs", type=int, default=None)
    a("--request-rate", type=float, default=float("inf"))
    a("--burstiness", type=float, default=1.0)
    a("--seed", type=int, default=0)
    a("--trust-remote-code", action="store_true")
    a("--disable-tqdm", action="store_true")
    a("--profile", action="store_true")
    a("--save-result", action="store_true")
    a("--save-detailed", action="store_true", default=False)
    a("--metadata", metavar="KEY=VALUE", nargs="*")
    a("--result-dir", type=str, default=None)
    a("--result-filename", type=str, default=None)
    a("--ignore-eos", action="store_true")
    a("--percentile-metrics", type=str, default="ttft,tpot,itl,e2el")
    a("--metric-percentiles", type=str, default="90,99,99.9")
    a("--goodput", nargs="+", required=False)
    sonnet = p.add_argument_group("sonnet dataset options")
    sonnet.add_argument("--sonnet-input-len", type=int, default=550)
    sonnet.add_argument("--sonnet-output-len", type=int, default=150)
    sonnet.add_argument("--sonnet-prefix-len", type=int, default=200)
    sharegpt = p.add_argument_group("sharegpt dataset options")
    sharegpt.add_argument("--sharegpt-output-len", type=int, default=None)
    rnd = p.add_argument_group("random dataset options")
    rnd.add_argument("--random-input-len", type=int, default=1024)
    rnd.add_argument("--random-output-len", type=int, default=128)
    rnd.add_argument("--random-range-ratio", type=float, default=1.0)
    rnd.add_argument("--random-prefix-len", type=int, default=0)
    rnd.add_argument("--use-chat-template", action="store_true")
    rnd.add_argument("--random-num-workers", type=int, default=0)
    dsv4 = p.add_argument_group("DeepSeek-V4 chat template options")
    dsv4.add_argument("--dsv4", action="store_true")
    hf = p.add_argument_group("hf dataset options")
    hf.add_argument("--hf-subset", type=str, default=None)
    hf.add_argument("--hf-split", type=str, default=None)
    hf.add_argument("--hf-output-len", type=int, default=None)
    a("--tokenizer-mode", type=str, default="auto", choices=["auto", "slow", "mistral", "custom",
                                                          "deepseek_v4"])
    a("--served-model-name", type=str, default=None)
    a("--lora-modules", nargs="+", default=None)
    a("--num-warmups", type=int, default=0)
    return p


if __name__ == "__main__":
    raise_nofile_limit()
    main(build_parser().parse_args())

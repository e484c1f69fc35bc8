#!/usr/bin/python3
"""One step of a faked job (see ./srun): a worker, the router or a benchmark point.

It answers what the launcher asks of the real program, on the same ports the Plan gives it
(read from the step's command and environment as the real programs read them):

  worker (SRT_WORKER_ROLE)  /health, /v1/models, /v1/completions and /metrics with ATOM's
                            atom:requests_finished_total, on SRT_HTTP_PORT (ATOM's --server-port)
  router                    AToMesh's /workers (stats.prefill_count, decode_count, regular_count
                            from its --prefill/--decode/--worker-urls), /v1/models,
                            /v1/completions on --port and mesh_http_responses_total and
                            mesh_http_requests_total{method,path} on --prometheus-port
  benchmark                 sends its requests to the frontend ($SRT_FRONTEND_HOST:PORT): 2
                            warm-ups ("Warming up with 2 requests...") and num_prompts (100),
                            then writes one result per point of SRT_BENCHMARK_CONCURRENCIES under
                            $SRT_FAKE_RESULTS/$SLURM_JOB_ID/fixed-seq, as benchmark_serving.py's
                            --save-result does (a saved one, $SRT_FAKE_RESULT_TEMPLATE, with the
                            point's concurrency and request counts)

--behaviour picks how it goes wrong:
  worker     healthy | unhealthy (/health 503) | exit (/health 503, ends with code 3 after a second) |
             wedged (/health ok, completions 503) | exit-on-benchmark (healthy until a benchmark
             step has started, then ends with code 3: a worker that dies mid-sweep; a relaunch
             is another step, decode_0_r1, with a behaviour of its own)
  router     healthy | partial (lists no decode worker) | cold (completions 503) |
             errors5xx (its 503 count on /metrics grows on its own)
  benchmark  healthy | fail (exit 2, no result) | stall (nothing moves until it is signalled) |
             failed6 (6 of 100 requests failed) | slow (30 s, then a result) |
             awhile (3 s, then a result: long enough for a worker to die meanwhile) |
             stranger (its own requests, and 5 more from "another client" while it runs) |
             srtctl (the whole sweep, every point of $CONC_LIST, in srtctl's layout:
             <job dir>/logs/sa-bench_isl_64_osl_16/results_concurrency_<N>_gpus_16.json with the
             sa-bench client's benchmark_outcome) | srtctl-short (the same without the last point)

Each step writes its pid to $SRT_FAKE_PIDS/<step> so the test can tell that none outlived the
launcher.
"""
import argparse
import http.server
import json
import os
import sys
import threading
import time
import urllib.request

MODEL = "fake-model"


def option(command, name, default=None):
    for i, a in enumerate(command):
        if a == name and i + 1 < len(command):
            return command[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def serve(address, port, routes):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):  # the step's log holds what the test prints, not access lines
            pass

        def answer(self, method):
            if method == "POST":
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
            code, body = routes(method, self.path.split("?")[0])
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.answer("GET")

        def do_POST(self):
            self.answer("POST")

    server = http.server.ThreadingHTTPServer((address, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def openai_routes(method, path, answered, refusal):
    """/v1/models and /v1/completions, as ATOM and AToMesh both serve them. A completion is
    refused with `refusal` (code, body) when it is set, else answered and counted in answered[0]."""
    if path == "/v1/models":
        return 200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
    if path == "/v1/completions" and method == "POST":
        if refusal:
            return refusal
        answered[0] += 1
        return 200, {"id": "cmpl-fake", "object": "text_completion", "model": MODEL,
                     "choices": [{"index": 0, "text": "x", "finish_reason": "length"}]}
    return 404, {"error": path}


def wait_for_signal():
    """A server step runs until the launcher stops it, as the real ones do."""
    while True:
        time.sleep(3600)


def worker(args, command):
    port = int(os.environ["SRT_HTTP_PORT"])
    finished = [0]

    def routes(method, path):
        if path == "/health":
            return (503, {"error": "loading"}) if args.behaviour in ("unhealthy", "exit") else (200, {})
        if path == "/metrics":
            return 200, "# TYPE atom:requests_finished_total counter\natom:requests_finished_total %d\n" % finished[0]
        refusal = (503, {"error": "rank not answering"}) if args.behaviour == "wedged" else None
        return openai_routes(method, path, finished, refusal)

    serve(args.address, port, routes)
    print(f"fake {args.step}: {os.environ.get('SRT_WORKER_ROLE')} on {args.address}:{port} ({args.behaviour})", flush=True)
    if args.behaviour == "exit":
        time.sleep(1)
        print(f"fake {args.step}: exiting with code 3", flush=True)
        sys.exit(3)
    if args.behaviour == "exit-on-benchmark":
        pids = os.environ["SRT_FAKE_PIDS"]
        while not any(name.startswith("benchmark") for name in os.listdir(pids)):
            time.sleep(0.1)
        print(f"fake {args.step}: a benchmark step started; exiting with code 3", flush=True)
        sys.exit(3)
    wait_for_signal()


def router(args, command):
    port = int(option(command, "--port", "8000"))
    metrics = option(command, "--prometheus-port")
    prefill = command.count("--prefill")
    decode = 0 if args.behaviour == "partial" else command.count("--decode")
    regular = command.count("--worker-urls")
    responses = [0]
    requests = {}  # (method, path) -> count, as AToMesh's mesh_http_requests_total

    def routes(method, path):
        requests[(method, path)] = requests.get((method, path), 0) + 1
        if path == "/workers":
            return 200, {"workers": [], "stats": {"prefill_count": prefill, "decode_count": decode, "regular_count": regular}}
        refusal = (503, {"error": "no available workers"}) if args.behaviour == "cold" else None
        return openai_routes(method, path, responses, refusal)

    serve(args.address, port, routes)
    # AToMesh's counter by status code (schema.rs); errors5xx: a 503 answered every 0.2 s (a wedged
    # engine behind it, or anyone's curl loop), which is not progress.
    errors = [0]
    if args.behaviour == "errors5xx":
        def tick():
            while True:
                errors[0] += 1
                time.sleep(0.2)
        threading.Thread(target=tick, daemon=True).start()

    def exposition(method, path):
        by_path = "".join('mesh_http_requests_total{method="%s",path="%s"} %d\n' % (m, p, n)
                          for (m, p), n in sorted(requests.items()))
        return 200, ('mesh_http_responses_total{status_code="200",error_code=""} %d\n'
                     'mesh_http_responses_total{status_code="503",error_code="no_workers"} %d\n' % (responses[0], errors[0])
                     + by_path)

    if metrics:
        serve(args.address, int(metrics), exposition)
    print(f"fake router on {args.address}:{port}: prefill {prefill}, decode {decode}, regular {regular} ({args.behaviour})",
          flush=True)
    wait_for_signal()


def send_completions(count):
    """benchmark_serving.py's requests, one after another, to the job's frontend."""
    url = "http://%s:%s/v1/completions" % (os.environ["SRT_FRONTEND_HOST"], os.environ["SRT_FRONTEND_PORT"])
    body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": 1}).encode()
    for _ in range(count):
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}),
                                   timeout=10).read()
        except OSError:
            pass  # a refused request is the benchmark's failure to report, as the real one does


def benchmark(args, command):
    points = os.environ.get("SRT_BENCHMARK_CONCURRENCIES", "").split()
    out = os.path.join(os.environ["SRT_FAKE_RESULTS"], os.environ["SLURM_JOB_ID"], "fixed-seq")
    print(f"fake {args.step}: points {points} ({args.behaviour})", flush=True)
    if args.behaviour == "fail":
        print("fake benchmark: Traceback (most recent call last): ConnectionRefusedError", flush=True)
        sys.exit(2)
    if args.behaviour == "stall":
        wait_for_signal()
    if args.behaviour == "slow":
        time.sleep(30)
    if args.behaviour == "awhile":
        time.sleep(3)
    if args.behaviour.startswith("srtctl"):
        srtctl_layout(args)
        return
    os.makedirs(out, exist_ok=True)
    # A saved benchmark_serving.py result (SRT_FAKE_RESULT_TEMPLATE) with this point's numbers.
    with open(os.environ["SRT_FAKE_RESULT_TEMPLATE"]) as f:
        template = json.load(f)
    for c in points:
        failed = 6 if args.behaviour == "failed6" else 0
        print("Warming up with 2 requests...", flush=True)
        send_completions(2 + 100)
        if args.behaviour == "stranger":
            send_completions(5)  # someone else's curl loop against the router, served meanwhile
        result = dict(template, max_concurrency=int(c), num_prompts=100, completed=100 - failed, failed=failed,
                      total_output_tokens=(100 - failed) * 1024)
        with open(os.path.join(out, f"fake-isl8192-osl1024-c{c}.json"), "w") as f:
            json.dump(result, f)


def srtctl_layout(args):
    """InferenceX's sa-bench client run by the recipe's own loop over $CONC_LIST, as srtctl runs it."""
    points = os.environ.get("CONC_LIST", "").replace(",", " ").split()
    if args.behaviour == "srtctl-short":
        points = points[:-1]
    out = os.path.join(os.environ["SRT_FAKE_RESULTS"], os.environ["SLURM_JOB_ID"], "logs", "sa-bench_isl_64_osl_16")
    os.makedirs(out, exist_ok=True)
    with open(os.environ["SRT_FAKE_RESULT_TEMPLATE"]) as f:
        template = json.load(f)
    for c in points:
        result = dict(template, max_concurrency=int(c), num_prompts=100, completed=100, failed=0,
                      total_output_tokens=100 * 16,
                      benchmark_outcome={"status": "passed", "requested": 100, "completed": 100, "failed": 0,
                                         "max_failure_rate": 0.05})
        with open(os.path.join(out, f"results_concurrency_{c}_gpus_16.json"), "w") as f:
            json.dump(result, f)
    print(f"fake {args.step}: srtctl layout, points {points}", flush=True)


def post_eval(args, command):
    """InferenceX's srt_eval.sh as srtctl's post_eval runs it: its artifacts under /logs/eval_results
    (the job's log directory here), what it was given recorded there, its exit status as asked."""
    out = os.path.join(os.environ["SRT_FAKE_RESULTS"], os.environ["SLURM_JOB_ID"], "logs", "eval_results")
    os.makedirs(out, exist_ok=True)
    seen = {name: os.environ.get(name) for name in ("MODEL_NAME", "EVAL_CONC", "RUN_EVAL", "EVAL_ONLY", "EVAL_LIMIT")}
    with open(os.path.join(out, "meta_env.json"), "w") as f:
        json.dump({"argv": command, "env": seen}, f)
    print(f"fake {args.step}: {command} ({args.behaviour})", flush=True)
    if args.behaviour == "fail":
        print("fake eval: lm-eval: accuracy below threshold", flush=True)
        sys.exit(3)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--step", required=True)
    p.add_argument("--address", required=True)
    p.add_argument("--behaviour", default="healthy")
    p.add_argument("command", nargs="*")
    args = p.parse_args()
    pids = os.environ.get("SRT_FAKE_PIDS")
    if pids:
        with open(os.path.join(pids, args.step), "w") as f:
            f.write(str(os.getpid()))
    if os.environ.get("SRT_WORKER_ROLE"):
        worker(args, args.command)
    elif args.step == "router":
        router(args, args.command)
    elif args.step.startswith("benchmark"):
        benchmark(args, args.command)
    elif args.step == "post_eval":
        post_eval(args, args.command)
    else:
        sys.exit(f"fake step: no fake for step {args.step!r}")


if __name__ == "__main__":
    main()

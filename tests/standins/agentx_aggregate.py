#!/usr/bin/python3
"""Stand-in for InferenceX's AgentX scoring: `python -m infx.results.agentic.process_agentic_result`
(the aggregate) and the workflow's check of it (`validate_agentic_result`).

  agentx_aggregate.py aggregate   RESULT_DIR/aiperf_artifacts -> $AGENTIC_OUTPUT_DIR/$RESULT_FILENAME.json
  agentx_aggregate.py validate    checks that aggregate; exit 1 naming the rule that failed

Environment, as the real processor reads it (read from its tests in SemiAnalysisAI/InferenceX,
no code copied): RESULT_DIR AGENTIC_OUTPUT_DIR RESULT_FILENAME MODEL MODEL_PREFIX FRAMEWORK
PRECISION CONC TP PP_SIZE DCP_SIZE PCP_SIZE EP_SIZE DP_ATTENTION KV_OFFLOADING KV_OFFLOAD_BACKEND
KV_OFFLOAD_BACKEND_METADATA TOTAL_CPU_DRAM_GB RUNNER_TYPE RECIPE_FINGERPRINT ROUTER_METADATA
KV_P2P_TRANSFER IS_MULTINODE (+ PREFILL_/DECODE_ NUM_WORKERS TP EP PP_SIZE PCP_SIZE DCP_SIZE
DP_ATTN when IS_MULTINODE=true). Optional ones missing get defaults (TP 1, sizes 1, EP 1,
DP_ATTENTION false, KV_OFFLOADING none: the real processor requires KV_OFFLOADING).

The aggregate (numbers rounded to 5 decimals, latencies in seconds):
  infmax_model_prefix model hw framework precision conc scenario_type("agentic-coding")
  is_multinode num_gpus tp pp dcp_size pcp_size ep dp_attention kv_offloading kv_offload_backend
  allocated_cpu_dram_gb num_requests_total num_requests_successful
  request_accounting {records_total records_profiled records_dropped_total
                      records_warmup_dropped records_error_dropped error_categories}
  request_metrics {qps latency tokens throughput cache}
  [+ recipe_fingerprint, dataset, router, kv_p2p_transfer when known/set]
Records cancelled at the end of the window (was_cancelled) count in records_total and
records_dropped_total, not as errors.

Validation (the workflow's rules): ok = records_profiled, errors = records_error_dropped,
total = ok + errors; fail when the aggregate is missing, when num_requests_successful is 0,
when RUN_INVALID.json sits beside the aggregate (or in the artifacts), or when
errors / total > AIPERF_FAILED_REQUEST_THRESHOLD (default 0.10).
"""

import json
import math
import os
import sys

LATENCY_PCTS = (50, 75, 90, 95, 99)
E2E_NORM_PCTS = (50, 75, 90, 95)


class InputError(Exception):
    pass


def _r(x):
    return None if x is None else round(float(x), 5)


def _pct(sorted_xs, p):
    rank = (len(sorted_xs) - 1) * p / 100.0
    lo, hi = math.floor(rank), math.ceil(rank)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (rank - lo)


def _std(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def stats(xs, pcts=LATENCY_PCTS):
    xs = [float(x) for x in xs if x is not None and math.isfinite(float(x))]
    if not xs:
        return {}
    s = sorted(xs)
    out = {"mean": _r(sum(s) / len(s))}
    for p in pcts:
        out[f"p{p}"] = _r(_pct(s, p))
    out["std"] = _r(_std(s))
    out["min"] = _r(s[0])
    out["max"] = _r(s[-1])
    return out


def inverse_stats(per_token_seconds, pcts=LATENCY_PCTS, extremes=True):
    """Tokens per second per user from a per-token time: mean = 1/mean, pNN = 1/pNN (a slow
    percentile of the time is the same percentile of interactivity), std of the inverses."""
    xs = sorted(x for x in per_token_seconds
                if x is not None and math.isfinite(x) and x > 0)
    if not xs:
        return {}
    out = {"mean": _r(1.0 / (sum(xs) / len(xs)))}
    for p in pcts:
        out[f"p{p}"] = _r(1.0 / _pct(xs, p))
    out["std"] = _r(_std([1.0 / x for x in xs]))
    if extremes:
        out["min"] = _r(1.0 / xs[-1])
        out["max"] = _r(1.0 / xs[0])
    return out


def _metric(record, name, scale=1.0):
    m = (record.get("metrics") or {}).get(name)
    if not isinstance(m, dict) or m.get("value") is None:
        return None
    try:
        value = float(m["value"])
    except (TypeError, ValueError):
        return None
    return value * scale if math.isfinite(value) else None


def _error_category(error):
    if isinstance(error, dict):
        for key in ("type", "message"):
            value = error.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip() if key == "type" else "unknown"
        return "unknown"
    if isinstance(error, str) and error.strip():
        return error.strip()[:80]
    return "unknown"


def request_accounting(records):
    warmup = errors = cancelled = profiled = 0
    categories = {}
    for r in records:
        meta = r.get("metadata") or {}
        if meta.get("benchmark_phase") == "warmup":
            warmup += 1
        elif meta.get("was_cancelled"):
            cancelled += 1
        elif r.get("error") is not None:
            errors += 1
            cat = _error_category(r["error"])
            categories[cat] = categories.get(cat, 0) + 1
        else:
            profiled += 1
    return {"records_total": len(records), "records_profiled": profiled,
            "records_dropped_total": warmup + errors + cancelled,
            "records_warmup_dropped": warmup, "records_error_dropped": errors,
            "error_categories": categories}


def is_profiled(record):
    meta = record.get("metadata") or {}
    return (meta.get("benchmark_phase") != "warmup" and not meta.get("was_cancelled")
            and record.get("error") is None)


def qps_stats(records):
    """Completions per 1 s window from the first end (the right boundary excluded)."""
    ends = sorted(r["metadata"]["request_end_ns"] for r in records
                  if (r.get("metadata") or {}).get("request_end_ns") is not None)
    if not ends:
        return {"samples": 0}
    span = (ends[-1] - ends[0]) / 1e9
    windows = int(span)
    if windows == 0:
        mean = len(ends) / span if span > 0 else float(len(ends))
        return {"mean": _r(mean), "samples": 0}
    counts = [0] * windows
    for e in ends:
        i = int((e - ends[0]) // 1_000_000_000)
        if i < windows:
            counts[i] += 1
    out = stats(counts, pcts=(50, 75, 90, 95))
    out["samples"] = windows
    return out


def request_metrics(records, aggregate, traces, num_gpus):
    profiled = [r for r in records if is_profiled(r)]
    ttft = [_metric(r, "time_to_first_token", 1e-3) for r in profiled]
    e2el = [_metric(r, "request_latency", 1e-3) for r in profiled]
    itl = [_metric(r, "inter_token_latency", 1e-3) for r in profiled]
    full_itl = [_metric(r, "full_response_inter_token_latency", 1e-3) for r in profiled]
    isl = [_metric(r, "input_sequence_length") for r in profiled]
    osl = [_metric(r, "output_sequence_length") for r in profiled]
    tpot, e2e_per_token = [], []
    for t, e, o in zip(ttft, e2el, osl):
        if t is not None and e is not None and o is not None and o > 1:
            tpot.append((e - t) / (o - 1))
        if e is not None and o is not None and math.isfinite(o) and o > 0 and e > 0:
            e2e_per_token.append(e / o)
    expected = []
    if traces:
        by_id = {t.get("id"): t.get("requests") or [] for t in traces}
        for r in profiled:
            meta = r.get("metadata") or {}
            turns = by_id.get(meta.get("conversation_id"))
            i = meta.get("turn_index")
            if turns is not None and isinstance(i, int) and 0 <= i < len(turns):
                turn = turns[i]
                out = turn.get("out", turn.get("output_length"))
                if out is not None:
                    expected.append(int(out))
    duration = 0.0
    if profiled:
        starts = [r["metadata"]["request_start_ns"] for r in profiled]
        ends = [r["metadata"]["request_end_ns"] for r in profiled]
        duration = (max(ends) - min(starts)) / 1e9
    sum_in = sum(x for x in isl if x is not None)
    sum_out = sum(x for x in osl if x is not None)

    def rate(n, gpus=1):
        return _r(n / duration / gpus) if duration > 0 else 0.0
    cache = None
    hit = aggregate.get("theoretical_prefix_cache_hit")
    if isinstance(hit, dict) and hit.get("avg") is not None:
        cache = _r(float(hit["avg"]) / 100.0)
    return {
        "qps": qps_stats(profiled),
        "latency": {
            "ttft": stats(ttft), "e2el": stats(e2el), "itl": stats(itl), "tpot": stats(tpot),
            "intvty": inverse_stats(itl),
            "e2e_norm_intvty": inverse_stats(e2e_per_token, E2E_NORM_PCTS, extremes=False),
            "full_response_itl": stats(full_itl),
            "full_response_intvty": inverse_stats(full_itl),
        },
        "tokens": {"input": stats(isl), "output_actual": stats(osl),
                   "output_expected": stats(expected)},
        "throughput": {
            "input": rate(sum_in), "output": rate(sum_out), "total": rate(sum_in + sum_out),
            "duration_seconds": _r(duration),
            "per_gpu": {"total_tput_tps": rate(sum_in + sum_out, num_gpus),
                        "output_tput_tps": rate(sum_out, num_gpus),
                        "input_tput_tps": rate(sum_in, num_gpus)},
        },
        "cache": {"theoretical_cache_hit_rate": cache},
    }


def _int_env(env, name, default=1, positive=True):
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    value = int(raw)
    if positive and value < 1:
        raise InputError(f"{name} must be a positive integer")
    return value


def _truthy(value):
    return str(value or "").strip().lower() in ("1", "true", "yes", "on")


def gpu_shape(env):
    """(fields, num_gpus, tp, ep, dp_attention). GPUs = TP*PP*PCP per worker; EP and DCP share
    the TP devices."""
    fields = {"pp": _int_env(env, "PP_SIZE"), "dcp_size": _int_env(env, "DCP_SIZE"),
              "pcp_size": _int_env(env, "PCP_SIZE")}
    tp = _int_env(env, "TP")
    ep = _int_env(env, "EP_SIZE")
    attention = (env.get("DP_ATTENTION") or "false").strip()
    num_gpus = tp * fields["pp"] * fields["pcp_size"]
    if _truthy(env.get("IS_MULTINODE")):
        side = {}
        for role in ("PREFILL", "DECODE"):
            workers = _int_env(env, f"{role}_NUM_WORKERS", 1, positive=False)
            rtp = _int_env(env, f"{role}_TP", tp)
            pp = _int_env(env, f"{role}_PP_SIZE")
            pcp = _int_env(env, f"{role}_PCP_SIZE")
            lower = role.lower()
            side[role] = workers
            fields.update({f"{lower}_tp": rtp, f"{lower}_ep": _int_env(env, f"{role}_EP", 1),
                           f"{lower}_pp": pp, f"{lower}_pcp_size": pcp,
                           f"{lower}_dcp_size": _int_env(env, f"{role}_DCP_SIZE"),
                           f"{lower}_dp_attention": (env.get(f"{role}_DP_ATTN") or "false"),
                           f"num_{lower}_gpu": workers * rtp * pp * pcp})
        num_gpus = fields["num_prefill_gpu"] + fields["num_decode_gpu"]
        role = "decode" if side["DECODE"] else "prefill"
        tp, ep = fields[f"{role}_tp"], fields[f"{role}_ep"]
        attention = "true" if any(_truthy(fields[f"{r}_dp_attention"])
                                  for r in ("prefill", "decode")) else "false"
    return fields, num_gpus, tp, ep, attention


def _json_env(env, name):
    raw = (env.get(name) or "").strip()
    if not raw or raw == "null":
        return None
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise InputError(f"{name} must contain valid JSON") from exc


def build_result(records, aggregate, env, traces=None):
    fields, num_gpus, tp, ep, attention = gpu_shape(env)
    kv_offloading = (env.get("KV_OFFLOADING") or "none").strip()
    backend = _json_env(env, "KV_OFFLOAD_BACKEND_METADATA")
    if backend is None and (env.get("KV_OFFLOAD_BACKEND") or "").strip() and kv_offloading != "none":
        backend = {"name": env["KV_OFFLOAD_BACKEND"].strip()}
    dram = (env.get("TOTAL_CPU_DRAM_GB") or "").strip()
    accounting = request_accounting(records)
    result = {
        "infmax_model_prefix": env.get("MODEL_PREFIX", ""),
        "model": env.get("MODEL", ""),
        "hw": env.get("RUNNER_TYPE", "") or "unknown",
        "framework": env.get("FRAMEWORK", ""),
        "precision": env.get("PRECISION", ""),
        "conc": _int_env(env, "CONC", 0, positive=False),
        "scenario_type": "agentic-coding",
        "is_multinode": _truthy(env.get("IS_MULTINODE")),
        "num_gpus": num_gpus, "tp": tp, **fields, "ep": ep, "dp_attention": attention,
        "kv_offloading": kv_offloading, "kv_offload_backend": backend,
        "allocated_cpu_dram_gb": int(dram) if dram else None,
        "num_requests_total": accounting["records_total"],
        "num_requests_successful": accounting["records_profiled"],
        "request_accounting": accounting,
        "request_metrics": request_metrics(records, aggregate, traces, num_gpus),
    }
    if (env.get("RECIPE_FINGERPRINT") or "").strip():
        result["recipe_fingerprint"] = env["RECIPE_FINGERPRINT"].strip()
    dataset = (aggregate.get("metadata") or {}).get("dataset")
    if dataset is not None:
        result["dataset"] = dataset
    router = _json_env(env, "ROUTER_METADATA")
    if router is not None:
        if not isinstance(router, dict) or set(router) != {"name", "version"}:
            raise InputError("ROUTER_METADATA must contain exactly 'name' and 'version'")
        result["router"] = router
    if (env.get("KV_P2P_TRANSFER") or "").strip():
        result["kv_p2p_transfer"] = env["KV_P2P_TRANSFER"].strip()
    return result


def artifacts_dir(result_dir):
    base = os.path.join(result_dir, "aiperf_artifacts")
    if os.path.exists(os.path.join(base, "profile_export.jsonl")):
        return base
    runs = sorted(d for d in (os.listdir(base) if os.path.isdir(base) else [])
                  if d.startswith("run_"))
    for d in runs:  # --num-profile-runs > 1 layout
        if os.path.exists(os.path.join(base, d, "profile_export.jsonl")):
            return os.path.join(base, d)
    raise InputError(f"no profile_export.jsonl under {base}")


def _require(env, names):
    missing = [n for n in names if not (env.get(n) or "").strip()]
    if missing:
        raise InputError(f"Missing required environment variable: {', '.join(missing)}")


def aggregate(env):
    _require(env, ["RESULT_DIR", "AGENTIC_OUTPUT_DIR", "RESULT_FILENAME"])
    art = artifacts_dir(env["RESULT_DIR"])
    records = []
    with open(os.path.join(art, "profile_export.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                records.append(json.loads(line))
    summary = {}
    path = os.path.join(art, "profile_export_aiperf.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    traces = None
    path = os.path.join(art, "standin_traces.jsonl")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            traces = [json.loads(line) for line in f if line.strip()]
    result = build_result(records, summary, env, traces)
    os.makedirs(env["AGENTIC_OUTPUT_DIR"], exist_ok=True)
    out = os.path.join(env["AGENTIC_OUTPUT_DIR"], env["RESULT_FILENAME"] + ".json")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    os.replace(tmp, out)
    acc = result["request_accounting"]
    print(f"aggregate: {out}: {acc['records_profiled']} profiled, "
          f"{acc['records_error_dropped']} failed, {acc['records_warmup_dropped']} warmup, "
          f"{acc['records_total']} records")
    return 0


def validate(env):
    _require(env, ["AGENTIC_OUTPUT_DIR", "RESULT_FILENAME"])
    raw = (env.get("AIPERF_FAILED_REQUEST_THRESHOLD") or "0.10").strip()
    try:
        threshold = float(raw)
    except ValueError as exc:
        raise InputError(f"AIPERF_FAILED_REQUEST_THRESHOLD must be a number, not {raw!r}") from exc
    out_dir = env["AGENTIC_OUTPUT_DIR"]
    path = os.path.join(out_dir, env["RESULT_FILENAME"] + ".json")
    if not os.path.exists(path):
        print(f"validate: FAIL: no aggregate {path}", file=sys.stderr)
        return 1
    with open(path, encoding="utf-8") as f:
        agg = json.load(f)
    invalid = [os.path.join(out_dir, "RUN_INVALID.json")]
    if (env.get("RESULT_DIR") or "").strip():
        invalid.append(os.path.join(env["RESULT_DIR"], "aiperf_artifacts", "RUN_INVALID.json"))
    failures = []
    if not agg.get("num_requests_successful"):
        failures.append("num_requests_successful is 0: no request succeeded")
    for p in invalid:
        if os.path.exists(p):
            failures.append(f"RUN_INVALID.json present ({p})")
    acc = agg.get("request_accounting") or {}
    ok = int(acc.get("records_profiled", agg.get("num_requests_successful") or 0))
    errors = int(acc.get("records_error_dropped", 0))
    total = ok + errors
    rate = errors / total if total else 0.0
    if total and rate > threshold:
        failures.append(f"failed-request rate {errors}/{total} = {rate:.1%} exceeds "
                        f"AIPERF_FAILED_REQUEST_THRESHOLD {threshold:g}")
    if failures:
        for msg in failures:
            print(f"validate: FAIL: {path}: {msg}", file=sys.stderr)
        return 1
    print(f"validate: ok: {path}: {ok} successful, {errors} failed ({rate:.1%} <= {threshold:g})")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in ("aggregate", "validate"):
        print("usage: agentx_aggregate.py aggregate|validate (configured by the environment)",
              file=sys.stderr)
        return 2
    try:
        return (aggregate if argv[0] == "aggregate" else validate)(os.environ)
    except (InputError, ValueError, OSError) as exc:
        print(f"{argv[0]}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

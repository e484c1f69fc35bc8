"""The files the AgentX replay stand-in (agentx_replay.py) writes, in aiperf's shapes, for
InferenceX's processor (agentx_aggregate.py here):
  <artifact-dir>/profile_export.jsonl          one record per request
  <artifact-dir>/profile_export_aiperf.json    run summary (+ metadata.dataset)
  <artifact-dir>/server_metrics_export.json    /metrics scraped before and after (+ .csv)
  <artifact-dir>/standin_traces.jsonl          the synthetic trace ({"id","requests":[{"out"}]})
  <artifact-dir>/RUN_INVALID.json              only when the failed-request threshold tripped
"""

import csv
import json
import math
import os

from agentx_metrics import server_metrics_export
from agentx_trace import prompt_words


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

"""Server metrics for the AgentX replay stand-in (agentx_replay.py): each --server-metrics URL's
Prometheus text is scraped before and after the run, and server_metrics_export.json gets, per
series, start, end, total and (counters) delta, in the shape InferenceX's processor reads.
"""

import asyncio
import re

import aiohttp


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

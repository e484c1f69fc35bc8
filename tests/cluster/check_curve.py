#!/usr/bin/python3
"""check_curve.py GPUS TOLERANCE RESULT.json...: per-GPU throughput and median TPOT must both be
non-decreasing over the points' concurrencies, within TOLERANCE (0.10: a point may be up to 10 %
below the one before). The lab's stand-ins follow a timing model (tests/standins/timing_model.py)
in which both rise with the load; a curve that zig-zags means the lab's CPU, not the model, set
the pace. Prints the table; exit 1 naming the first point that breaks the rule."""

import json
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    gpus, tolerance = int(sys.argv[1]), float(sys.argv[2])
    points = []
    for path in sys.argv[3:]:
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        points.append((int(r["max_concurrency"]), r["total_token_throughput"] / gpus,
                       r["median_tpot_ms"], path))
    points.sort()
    bad = []
    for (c0, t0, p0, _), (c1, t1, p1, _) in zip(points, points[1:]):
        if t1 < t0 * (1 - tolerance):
            bad.append(f"tok/s/gpu falls from c{c0} ({t0:.1f}) to c{c1} ({t1:.1f})")
        if p1 < p0 * (1 - tolerance):
            bad.append(f"median TPOT falls from c{c0} ({p0:.2f} ms) to c{c1} ({p1:.2f} ms)")
    for c, t, p, _ in points:
        print(f"  c{c:<5} tok/s/gpu {t:8.1f}  median TPOT {p:8.2f} ms")
    for line in bad:
        print("not monotone: " + line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

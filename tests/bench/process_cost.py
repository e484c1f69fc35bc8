#!/usr/bin/python3
"""Wall time and peak RSS of a whole command, as a user pays for it (docs/performance.md).

  process_cost.py NAME RUNS -- COMMAND...
Runs COMMAND RUNS times (after one warm-up), prints one line: NAME, median and min wall ms, and
the largest peak RSS over the runs. Exits non-zero if a run fails.

The RSS comes from GNU time (/usr/bin/time -f %M), not from this process's wait4: Linux carries
a child's pre-exec high-water mark over exec, so a child forked from Python would report
Python's own RSS (14 MiB) for /bin/true. GNU time forks from a 1 MiB process.
"""
import statistics
import subprocess
import sys
import tempfile
import time


def once(cmd):
    """Wall seconds (of the command alone, not GNU time's fork) and peak RSS in KiB."""
    with tempfile.NamedTemporaryFile("r") as out:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", out.name] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"process_cost: {' '.join(cmd)} failed: {p.stderr.decode(errors='replace').strip()}")
        rss = int(out.read().split()[-1])
    return dt, rss


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit(__doc__)
    name, runs, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[4:]
    once(cmd)
    walls, rss = [], 0
    for _ in range(runs):
        dt, r = once(cmd)
        walls.append(dt * 1000)
        rss = max(rss, r)
    print(f"{name:<34} {statistics.median(walls):9.2f} {min(walls):9.2f} {rss / 1024:9.1f}")


if __name__ == "__main__":
    main()

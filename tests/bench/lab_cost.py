#!/usr/bin/python3
"""What the plugin costs the jobs on a running lab (tests/cluster/lab-start.sh); docs/performance.md.

Three variants of `srun -N3 true`, interleaved in a fresh random order each round so drift in the
machine's load hits all of them alike:
  none     the lab's plugstack without the srt line (a cluster without srt-spank)
  loader   the srt line present, the job does not use it (what everyone else pays)
  recipe   the srt line present and --srt-recipe=RECIPE (snapshot, Plan, environment, topology)
The srt line lives in BASE/etc/plugstack.conf.d/srt.conf, which every srun and slurmstepd reads
again, so switching is writing or removing that file between runs (slurmd itself does not use it).

Then the callbacks themselves, timed inside the plugin (its `timing` plugstack argument): srun
prints the local ones, each node's slurmd log gets the remote ones (slurmstepd's).

Then the memory the implementation adds to slurmstepd: `srun -N3 [--srt-recipe] sleep`, and the
VmHWM of one of that step's slurmstepds, with and without the option, and the shared libraries
the option adds to that slurmstepd's /proc/PID/maps.

Prints one table; exits non-zero if a run fails or the implementation brings a library into
slurmstepd that it must not (NOT_IN_STEPD: a fact of the build, not a time), never on a time.
  lab_cost.py --base BASE --spank "/abs/spank_srt.so args" --recipe R [--runs N] [--rss-runs N]
"""
import argparse
import glob
import os
import re
import random
import statistics
import subprocess
import sys
import time

RUN_TIMEOUT = 60
# Libraries the implementation must not bring into slurmstepd: SHA-256 is Nettle's, the
# node side plans from the snapshot's documents (no YAML parser), the submit side stays on the submit host.
NOT_IN_STEPD = ("libcrypto", "libyaml-cpp", "srt_spank_impl")


def lab_env(base):
    """SLURM_CONF and the LAB_* variables lab-start.sh wrote into BASE/env.sh."""
    out = subprocess.run(["bash", "-c", f'source "{base}/env.sh" && env -0'], check=True,
                         capture_output=True, timeout=10).stdout
    return dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)


class Plugstack:
    def __init__(self, base, line):
        self.path = os.path.join(base, "etc", "plugstack.conf.d", "srt.conf")
        self.line = line

    def set(self, on):
        if on:
            tmp = self.path + ".tmp"
            with open(tmp, "w") as f:
                f.write(f"required {self.line}\n")
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.path)  # atomic: a reader sees the old file or the new one
        elif os.path.exists(self.path):
            os.unlink(self.path)


def run(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"lab_cost: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr.strip()}")
    return dt


def srun_true(variant, nodes, recipe):
    cmd = ["srun", f"-N{nodes}"]
    if variant == "recipe":
        cmd.append(f"--srt-recipe={recipe}")
    return cmd + ["true"]


TIMING = re.compile(r"srt: timing (local|remote) (\w+) ([0-9.]+) us")


def measure_callbacks(variant, nodes, recipe, env, base, n):
    """{(side, callback): [us, ...]} over N runs of the variant with the plugin's timing on."""
    logs = glob.glob(os.path.join(base, "log", "slurmd-*.log"))
    offsets = {f: os.path.getsize(f) for f in logs}
    found = {}
    for _ in range(n):
        p = subprocess.run(srun_true(variant, nodes, recipe), env=env, capture_output=True, text=True,
                           timeout=RUN_TIMEOUT)
        if p.returncode != 0:
            sys.exit(f"lab_cost: timing run failed: {p.stderr.strip()}")
        for m in TIMING.finditer(p.stderr):
            found.setdefault((m[1], m[2]), []).append(float(m[3]))
    time.sleep(0.5)  # slurmd's log lines of the last step
    for f in logs:
        with open(f, errors="replace") as fh:
            fh.seek(offsets[f])
            for m in TIMING.finditer(fh.read()):
                found.setdefault((m[1], m[2]), []).append(float(m[3]))
    return found


def mapped_libraries(pid):
    """The shared objects process PID maps, by file name ("libc.so.6")."""
    with open(f"/proc/{pid}/maps") as f:
        paths = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    return {os.path.basename(p) for p in paths if p.startswith("/") and ".so" in os.path.basename(p)}


def step_rss_kib(job_name, env, srun, timeout=45.0):
    """VmRSS, VmHWM (KiB) and mapped libraries of the slurmstepd running job JOB_NAME's step 0,
    found by its title."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if srun.poll() is not None:
            sys.exit(f"lab_cost: srun for {job_name} ended ({srun.returncode}) before its slurmstepd "
                     f"was seen: {srun.stderr.read().strip()}")
        # Only once running: the previous job's nodes may still be completing.
        q = subprocess.run(["squeue", "-h", "-n", job_name, "-t", "R", "-o", "%i"], env=env,
                           capture_output=True, text=True, timeout=10)
        jid = q.stdout.strip()
        if jid:
            # The title is cut to the length of slurmstepd's original argv: "slurmstepd: [115.0"
            title = re.compile(r"slurmstepd: \[" + jid + r"\.0(?!\d)")
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if not title.match(f.read().decode(errors="replace")):
                            continue
                    fields = {}
                    with open(f"/proc/{pid}/status") as f:
                        for line in f:
                            k, _, v = line.partition(":")
                            fields[k] = v.strip()
                    if "VmRSS" in fields:
                        return (int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0]),
                                mapped_libraries(pid))
                except OSError:
                    continue
        time.sleep(0.1)
    sys.exit(f"lab_cost: no slurmstepd for job {job_name} within {timeout:.0f} s")


def measure_rss(variant, nodes, recipe, env, n):
    out = []
    for i in range(n):
        name = f"bench-rss-{variant}-{os.getpid()}-{i}"
        cmd = ["srun", f"-N{nodes}", "-J", name]
        if variant == "recipe":
            cmd.append(f"--srt-recipe={recipe}")
        p = subprocess.Popen(cmd + ["sleep", "3"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(1.0)  # past task_init: the implementation has done all it does
            out.append(step_rss_kib(name, env, p))
        finally:
            _, err = p.communicate(timeout=RUN_TIMEOUT)
        if p.returncode != 0:
            sys.exit(f"lab_cost: {' '.join(cmd)} failed ({p.returncode}): {err.strip()}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--spank", required=True, help="the srt plugstack line without 'required'")
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rss-runs", type=int, default=3)
    ap.add_argument("--timing-runs", type=int, default=10)
    a = ap.parse_args()
    env = dict(os.environ, **lab_env(a.base))
    stack = Plugstack(a.base, a.spank)
    variants = ["none", "loader", "recipe"]
    times = {v: [] for v in variants}
    try:
        for v in variants:  # warm-up: page cache, munge, the first topology discovery
            stack.set(v != "none")
            run(srun_true(v, a.nodes, a.recipe), env)
        for _ in range(a.runs):
            order = variants[:]
            random.shuffle(order)
            for v in order:
                stack.set(v != "none")
                times[v].append(run(srun_true(v, a.nodes, a.recipe), env))
        stack.line = a.spank + " timing"
        stack.set(True)
        calls = {v: measure_callbacks(v, a.nodes, a.recipe, env, a.base, a.timing_runs)
                 for v in ("loader", "recipe")}
        stack.line = a.spank
        stack.set(True)
        rss = {v: measure_rss(v, a.nodes, a.recipe, env, a.rss_runs) for v in ("loader", "recipe")}
    finally:
        stack.set(True)

    med = {v: statistics.median(t) * 1000 for v, t in times.items()}
    print(f"srun -N{a.nodes} true, {a.runs} interleaved runs each (ms)")
    print(f"  {'variant':<8} {'median':>8} {'min':>8} {'max':>8} {'ratio':>7}")
    for v in variants:
        t = [x * 1000 for x in times[v]]
        print(f"  {v:<8} {med[v]:8.1f} {min(t):8.1f} {max(t):8.1f} {med[v] / med['none']:7.3f}")
    print(f"plugin callbacks, timed inside the plugin (us, median of {a.timing_runs} runs x tasks)")
    print(f"  {'callback':<24} {'no option':>10} {'--srt-recipe':>13}")
    keys = sorted(set(calls["loader"]) | set(calls["recipe"]), key=lambda k: (k[0], k[1]))
    order = ["init", "init_post_opt", "local_user_init", "user_init", "task_init", "exit"]
    keys.sort(key=lambda k: (k[0], order.index(k[1]) if k[1] in order else 99))
    for k in keys:
        cells = []
        for v in ("loader", "recipe"):
            xs = calls[v].get(k)
            cells.append(f"{statistics.median(xs):.1f}" if xs else "-")
        print(f"  {k[0] + ' ' + k[1]:<24} {cells[0]:>10} {cells[1]:>13}")
    r_loader = statistics.median(h for _, h, _ in rss["loader"])
    r_recipe = statistics.median(h for _, h, _ in rss["recipe"])
    added = sorted(set().union(*(m for _, _, m in rss["recipe"])) -
                   set().union(*(m for _, _, m in rss["loader"])))
    print("slurmstepd peak RSS (VmHWM, KiB, median of %d)" % a.rss_runs)
    print(f"  without --srt-recipe {r_loader:8.0f}")
    print(f"  with --srt-recipe    {r_recipe:8.0f}   (+{(r_recipe - r_loader) / 1024:.1f} MiB)")
    print(f"  libraries --srt-recipe adds to slurmstepd's maps: {' '.join(added) or '(none)'}")
    banned = [lib for lib in added if lib.startswith(NOT_IN_STEPD)]
    print(f"RESULT loader_ratio={med['loader'] / med['none']:.3f} "
          f"recipe_ratio={med['recipe'] / med['none']:.3f} "
          f"stepd_added_mib={(r_recipe - r_loader) / 1024:.1f} stepd_added_libs={len(added)}")
    if not any(lib.startswith("srt_spank_node") for lib in added):
        sys.exit("lab_cost: no slurmstepd of a --srt-recipe step mapped srt_spank_node.so: the maps "
                 "check above would prove nothing")
    if banned:
        sys.exit(f"lab_cost: the implementation brings {' '.join(banned)} into slurmstepd "
                 f"(not allowed: {', '.join(NOT_IN_STEPD)})")


if __name__ == "__main__":
    main()

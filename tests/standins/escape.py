"""A detached helper that leaves its step's process tree, for the cleanup tests (opt-in).

Real engines start helpers that daemonize (a compile-cache server, a profiler agent): setsid()
to leave the session and process group, a second fork so the helper is re-parented away from
the engine. Slurm's proctrack/linuxproc (the lab's) follows parent links only, so such a
helper escapes it; proctrack/cgroup or a PID namespace (the lab's bwrap runtime) catches it.

SRT_STANDIN_ESCAPE_SECONDS=N (unset or 0: off) makes the ATOM stand-in start one that sleeps
N seconds (bounded, so a leak ends by itself). It runs /bin/sleep with SRT_STANDIN_ESCAPEE=1
added to the environment it inherited (SLURM_JOB_ID and all), which is how a test finds it in
/proc/PID/environ.
"""

import os

from standin_common import env_float

MARKER = "SRT_STANDIN_ESCAPEE"


def start_escapee(log):
    """Start the helper if the knob asks for it; returns its PID (as this process sees PIDs:
    inside a PID namespace that is the namespace's number) or None."""
    seconds = env_float("SRT_STANDIN_ESCAPE_SECONDS", 0.0)
    if seconds <= 0:
        return None
    read_end, write_end = os.pipe()
    first = os.fork()
    if first == 0:
        os.close(read_end)
        try:
            os.setsid()
            second = os.fork()
            if second == 0:
                _become_escapee(seconds)
            os.write(write_end, str(second).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(first, 0)  # the intermediate exits at once: the helper is an orphan from here
    with os.fdopen(read_end) as pipe:
        text = pipe.read().strip()
    pid = int(text) if text.isdigit() else None
    log.warning("stand-in: started a detached helper (setsid, double fork): pid %s, sleeps %g s "
                "(SRT_STANDIN_ESCAPE_SECONDS)", pid, seconds)
    return pid


def _become_escapee(seconds):
    """In the grandchild: drop the step's stdio as a daemon does, then exec sleep."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    env = dict(os.environ)
    env[MARKER] = "1"
    try:
        os.execve("/bin/sleep", ["sleep", "%g" % seconds], env)
    finally:
        os._exit(127)

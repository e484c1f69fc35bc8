"""Process and port helpers for the stand-in tests.

Every process a test starts runs in its own session (process group) so tearDown can end the
whole tree it started (server + EngineCores) by that group's id, with TERM then KILL. Every
wait is bounded. Ports are picked at random in 20000-32000 (below the usual ephemeral range)
and bind-tested, so tests can run beside other engineers' processes.
"""

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
STANDINS = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(STANDINS))
TOOLS = os.path.join(REPO, "tests", "tools")
PKG = os.path.join(STANDINS, "pkg")
PYTHON = "/usr/bin/python3"
ATOMESH = os.path.join(STANDINS, "bin", "atomesh")
BENCHMARK = os.path.join(STANDINS, "benchmark_serving.py")

for path in (STANDINS, TOOLS):
    if path not in sys.path:
        sys.path.insert(0, path)


def port_is_free(port, host="0.0.0.0"):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
            return True
        except OSError:
            return False


def free_port_block(width, attempts=200):
    """A base port B with B..B+width-1 all free right now."""
    for _ in range(attempts):
        base = random.randrange(20000, 32000 - width)
        if all(port_is_free(base + i) for i in range(width)):
            return base
    raise RuntimeError(f"no free block of {width} ports found")


def listening_ports():
    """{port: {pids}} from ss -ltnpH."""
    import port_audit
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, timeout=30).stdout
    ports = {}
    for _addr, port, pids in port_audit.parse_ss(out):
        ports.setdefault(port, set()).update(pids)
    return ports


def tree_pids(root):
    import port_audit
    return port_audit.ProcTable().tree([root])


def http_get(url, timeout=2.0):
    """(status, body bytes) or (None, error text) when the connection fails."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        return None, str(exc)


def http_post(url, body, timeout=10.0):
    import json
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        return None, str(exc).encode()


def wait_for(predicate, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


class Proc:
    """A started program with its log file."""

    def __init__(self, argv, env, name):
        self.name = name
        self.log = tempfile.NamedTemporaryFile(prefix=f"standin-{name}-", suffix=".log",
                                               delete=False)
        self.popen = subprocess.Popen(argv, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, start_new_session=True)

    @property
    def pid(self):
        return self.popen.pid

    def output(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait(self, timeout):
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        """TERM then KILL this process's own group (it was started in a new session)."""
        pgid = self.popen.pid
        for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            if self.wait(grace) is not None and not self._group_alive(pgid):
                break
        self.wait(1.0)
        self.log.close()
        os.unlink(self.log.name)

    @staticmethod
    def _group_alive(pgid):
        try:
            os.killpg(pgid, 0)
            return True
        except ProcessLookupError:
            return False


class StandinTestCase(unittest.TestCase):
    """Starts programs, and ends every one of them in tearDown."""

    def setUp(self):
        self.procs = []

    def tearDown(self):
        for proc in reversed(self.procs):
            if self._outcome_failed():
                sys.stderr.write(f"\n--- log of {proc.name} ---\n{proc.output()[-4000:]}\n")
            proc.stop()

    def _outcome_failed(self):
        result = getattr(self._outcome, "result", None)
        errors = getattr(result, "errors", []) + getattr(result, "failures", [])
        return any(test is self for test, _ in errors)

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ATOM_", "SRT_STANDIN_", "USE_ATOMESH"))}
        env["PYTHONPATH"] = PKG
        env["PYTHONUNBUFFERED"] = "1"
        env["ATOM_HOST_IP"] = "127.0.0.1"
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def start(self, argv, env, name):
        proc = Proc(argv, env, name)
        self.procs.append(proc)
        return proc

    def start_atom(self, args, name="atom", **env):
        argv = [PYTHON, "-m", "atom.entrypoints.openai_server"] + [str(a) for a in args]
        return self.start(argv, self.env(**env), name)

    def start_atomesh(self, args, name="atomesh", **env):
        return self.start([ATOMESH] + [str(a) for a in args], self.env(**env), name)

    def wait_healthy(self, port, proc, timeout=30.0):
        def healthy():
            if proc.popen.poll() is not None:
                self.fail(f"{proc.name} exited with {proc.popen.returncode}:\n"
                          f"{proc.output()[-3000:]}")
            return http_get(f"http://127.0.0.1:{port}/health")[0] == 200
        self.assertTrue(wait_for(healthy, timeout), f"{proc.name} not healthy in {timeout}s")

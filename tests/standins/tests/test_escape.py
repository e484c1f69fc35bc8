"""The opt-in escaping helper (escape.py): off by default; when asked for, it really leaves the
caller's session and parent (what the cluster test's cleanup has to cope with)."""

import os
import signal
import subprocess
import time
import unittest
import uuid

from support import PYTHON, STANDINS

SNIPPET = ("import logging, sys; sys.path.insert(0, sys.argv[1]); import escape; "
           "print(escape.start_escapee(logging.getLogger('t')))")


def pids_with_env(entry):
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if entry.encode() in f.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue
    return found


def stat_fields(pid):
    """(ppid, session id) from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[1]), int(rest[3])


class Escape(unittest.TestCase):
    def run_caller(self, seconds):
        token = f"SRT_TEST_ESCAPE_TOKEN={uuid.uuid4().hex}"
        env = dict(os.environ, SRT_STANDIN_ESCAPE_SECONDS=seconds)
        env.update([token.split("=", 1)])
        caller = subprocess.Popen([PYTHON, "-c", SNIPPET, STANDINS], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        caller.out, caller.err = caller.communicate(timeout=30)
        self.assertEqual(caller.returncode, 0, caller.err)
        return token, caller

    def test_off_by_default(self):
        token, caller = self.run_caller("0")
        self.assertEqual(caller.out.strip(), "None")
        self.assertEqual(pids_with_env(token), [])

    def test_helper_leaves_session_and_parent_and_keeps_the_environment(self):
        token, caller = self.run_caller("30")
        pid = int(caller.out.strip())
        try:
            marker = "SRT_STANDIN_ESCAPEE=1"
            for _ in range(50):  # the exec into sleep may not have happened yet
                if pid in pids_with_env(token) and pid in pids_with_env(marker):
                    break
                time.sleep(0.1)
            self.assertIn(pid, pids_with_env(token), "the helper keeps the caller's environment")
            self.assertIn(pid, pids_with_env(marker), "and adds the marker tests find it by")
            with open(f"/proc/{pid}/cmdline") as f:
                self.assertEqual(f.read().split("\0")[:2], ["sleep", "30"])
            ppid, sid = stat_fields(pid)
            # The caller ran in a session of its own (start_new_session): its id is the caller's pid.
            self.assertNotEqual(sid, caller.pid, "setsid(): it left the caller's session")
            self.assertNotEqual(sid, pid, "double fork: not the session leader either")
            # The intermediate exited: the helper was re-parented (to init or a subreaper).
            self.assertNotEqual(ppid, caller.pid)
            self.assertIn("started a detached helper", caller.err)
        finally:
            os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    unittest.main()

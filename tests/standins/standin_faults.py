"""The lab's fault knobs, one implementation for every engine stand-in (ATOM, SGLang, vLLM).

SRT_STANDIN_CRASH_AFTER_REQUESTS=N: the request after the Nth kills the server's first rank (the
stand-in says which process that is), as a fatal GPU fault ends an engine mid-sweep; with
SRT_STANDIN_CRASH_MARKER=PATH only when PATH does not exist yet, which the crash creates: the
relaunched worker, which has the same environment, does not crash again.
SRT_STANDIN_HANG_AFTER_REQUESTS=N: every request past the Nth gets no answer (the connection held
open, /health and /metrics still fine: a wedged engine); with SRT_STANDIN_HANG_MARKER=PATH only
when PATH does not exist yet, which the hang creates (a transient fault a rerun does not meet).
A server mixes in Faults, calls init_faults(log) and counts its requests in self.requests_total.
"""

import asyncio
import logging
import os
import signal

from standin_common import env_int


class Faults:
    def init_faults(self, log: logging.Logger):
        self.fault_log = log
        self.hang_after = env_int("SRT_STANDIN_HANG_AFTER_REQUESTS", 0)
        self.hang_marker = os.environ.get("SRT_STANDIN_HANG_MARKER", "")
        self.hanging = False
        self.crash_after = env_int("SRT_STANDIN_CRASH_AFTER_REQUESTS", 0)
        self.crash_marker = os.environ.get("SRT_STANDIN_CRASH_MARKER", "")
        self.crashed = False

    def crash_now(self, victim_pid: int, victim: str):
        """Past SRT_STANDIN_CRASH_AFTER_REQUESTS requests (once, and only without the marker):
        SIGKILL `victim_pid` (named `victim` in the log). The server's own watch of its ranks then
        takes it down as the real engine's does."""
        if not self.crash_after or self.crashed or self.requests_total <= self.crash_after:
            return
        if self.crash_marker:
            try:
                with open(self.crash_marker, "x"):
                    pass
            except FileExistsError:
                return
        self.crashed = True
        self.fault_log.error("stand-in: %s crashes after %d requests (SRT_STANDIN_CRASH_AFTER_REQUESTS)", victim,
                  self.crash_after)
        os.kill(victim_pid, signal.SIGKILL)

    async def hang_if_wedged(self):
        """Past SRT_STANDIN_HANG_AFTER_REQUESTS requests: never answer (the connection stays)."""
        if not self.hang_after or self.requests_total <= self.hang_after:
            return
        if not self.hanging:
            if self.hang_marker:
                if os.path.exists(self.hang_marker):
                    return
                with open(self.hang_marker, "x"):
                    pass
            self.hanging = True
            self.fault_log.warning(
                "stand-in: wedged after %d requests (SRT_STANDIN_HANG_AFTER_REQUESTS): request %d and every "
                "later one get no answer", self.hang_after, self.requests_total)
        await asyncio.Event().wait()

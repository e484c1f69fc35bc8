"""Stand-in for ``atom/distributed/kv_events.py`` as srt-helper preflight inspects it (it loads
this file alone, never the ``atom`` package): an ATOM with ROCm/ATOM PR #1316 has
``offset_endpoint`` (rank r binds port + r); ATOM at ffdf3bb5d has none and every rank binds the
endpoint as given. The stand-in's ranks behave per SRT_STANDIN_KV_BEHAVIOUR
(tests/standins/kv_events.py), so this module shows the face of that ATOM build: the helper
exists exactly when the behaviour is ``offset``. (``connect`` is Infera's hook, not ATOM's.)"""

import os

if os.environ.get("SRT_STANDIN_KV_BEHAVIOUR", "verbatim") == "offset":

    def offset_endpoint(endpoint, dp_rank):
        """tcp://host:P -> tcp://host:(P + dp_rank); ipc/inproc get a _dp<rank> suffix."""
        if endpoint.startswith("tcp://"):
            host, _, port = endpoint.rpartition(":")
            return f"{host}:{int(port) + dp_rank}"
        return f"{endpoint}_dp{dp_rank}"

"""KV-cache event publishing as the three kinds of ATOM image do it.

Selected by SRT_STANDIN_KV_BEHAVIOUR in each rank process:

- ``verbatim`` (default): ATOM at ffdf3bb (no PR #1316). Every DP rank binds
  ATOM_KV_EVENTS_ENDPOINT exactly as given, so rank >= 1 of a DP-attention worker dies with
  ``zmq.error.ZMQError: Address already in use``. Framing is ffdf3bb's: one ``[payload]``
  frame, or ``[topic, payload]`` when ATOM_KV_EVENTS_TOPIC is set.
- ``offset``: ATOM with PR #1316 (vLLM's rule): rank r binds port + r (``_dp{r}`` for
  ipc/inproc), frames are ``[topic, seq(8-byte big-endian), payload]``, and an optional replay
  ROUTER binds ATOM_KV_EVENTS_REPLAY_ENDPOINT + r.
- ``connect``: an image with Infera's hook (PR #121). ATOM's own publisher is still there and
  still binds ATOM_KV_EVENTS_ENDPOINT verbatim in every rank (so pointing it at a relay's
  ingress makes the ranks take the ingress from each other); the hook, when
  INFERA_ATOM_KV_EVENTS_CONNECT=1, also *connects* a PUB per rank to
  INFERA_ATOM_KV_EVENTS_ENDPOINT so a relay's XSUB merges them, with the 3-frame framing.

Payloads are msgpack in ATOM's msgspec ``array_like`` + ``tag`` layout:
EventBatch = [ts, [event...], data_parallel_rank];
BlockStored = ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size];
BlockRemoved = ["BlockRemoved", block_hashes]; AllBlocksCleared = ["AllBlocksCleared"].
"""

import collections
import os
import time

import msgpack
import zmq

from standin_common import offset_endpoint

BEHAVIOURS = ("verbatim", "offset", "connect")
DEFAULT_ENDPOINT = "tcp://127.0.0.1:5557"  # ATOM envs.py default
REPLAY_END_SEQ = b"\xff" * 8  # PR #1316's end-of-replay marker


class KvEventsConfig:
    """ATOM's env-only KV-event configuration (atom/utils/envs.py), read once per rank."""

    def __init__(self, environ=None):
        env = os.environ if environ is None else environ
        self.enable = env.get("ATOM_KV_EVENTS_ENABLE", "0") == "1"
        self.publisher = env.get("ATOM_KV_EVENTS_PUBLISHER", "zmq")
        self.endpoint = env.get("ATOM_KV_EVENTS_ENDPOINT", DEFAULT_ENDPOINT)
        self.topic = env.get("ATOM_KV_EVENTS_TOPIC", "")
        self.hwm = int(env.get("ATOM_KV_EVENTS_HWM", "0") or "0")
        self.buffer_steps = int(env.get("ATOM_KV_EVENTS_BUFFER_STEPS", "10000") or "10000")
        self.replay_endpoint = env.get("ATOM_KV_EVENTS_REPLAY_ENDPOINT", "")
        self.hook_endpoint = env.get("INFERA_ATOM_KV_EVENTS_ENDPOINT", "")
        self.hook_connect = env.get("INFERA_ATOM_KV_EVENTS_CONNECT", "0") == "1"
        self.behaviour = env.get("SRT_STANDIN_KV_BEHAVIOUR", "verbatim")
        if self.behaviour not in BEHAVIOURS:
            raise ValueError(f"SRT_STANDIN_KV_BEHAVIOUR must be one of {BEHAVIOURS}, "
                             f"got {self.behaviour!r}")

    @property
    def active(self):
        return self.enable and self.publisher == "zmq"


def block_stored(block_hashes, parent_hash, token_ids, block_size):
    return ["BlockStored", list(block_hashes), parent_hash, list(token_ids), block_size]


def block_removed(block_hashes):
    return ["BlockRemoved", list(block_hashes)]


def encode_batch(events, dp_rank, ts=None):
    batch = [time.time() if ts is None else ts, events]
    if dp_rank is not None:
        batch.append(dp_rank)
    return msgpack.packb(batch, use_bin_type=True)


def decode_batch(payload):
    """For tests and consumers: (ts, events, data_parallel_rank or None)."""
    batch = msgpack.unpackb(payload, raw=False)
    return batch[0], batch[1], (batch[2] if len(batch) > 2 else None)


class KvEventPublisher:
    """One rank's publisher. Construction does the bind/connect, so a collision raises
    zmq.ZMQError(EADDRINUSE) right here, as ZmqEventPublisher.__init__ does in ATOM."""

    def __init__(self, ctx, config, dp_rank, log, connect=False):
        """`connect` (only with the ``offset`` behaviour): connect the PUB (and replay) socket to
        the offset endpoint instead of binding it, as SGLang's ZmqEventPublisher does for an
        endpoint without ``*``/``::`` (a relay's ingress). Default False: bind, as before."""
        self._config = config
        self._dp_rank = dp_rank
        self._log = log
        self._topic = config.topic.encode()
        self._seq = 0
        self._replay = None
        self._buffer = collections.deque(maxlen=max(1, config.buffer_steps))
        self.socket = ctx.socket(zmq.PUB)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.set_hwm(config.hwm)
        self.hook = None
        behaviour = config.behaviour
        if behaviour in ("verbatim", "connect"):
            self.endpoint = config.endpoint
            self.socket.bind(self.endpoint)
            self.endpoint = self.socket.getsockopt_string(zmq.LAST_ENDPOINT)  # a `*` port resolved
        elif behaviour == "offset":
            self.endpoint = offset_endpoint(config.endpoint, dp_rank)
            (self.socket.connect if connect else self.socket.bind)(self.endpoint)
            if config.replay_endpoint:
                self._replay = ctx.socket(zmq.ROUTER)
                self._replay.setsockopt(zmq.LINGER, 0)
                replay = offset_endpoint(config.replay_endpoint, dp_rank)
                (self._replay.connect if connect else self._replay.bind)(replay)
        log.info("KV event publisher (%s) %s %s for dp_rank=%d", behaviour,
                 "connected to" if connect else "bound", self.endpoint, dp_rank)
        if behaviour == "connect" and config.hook_connect and config.hook_endpoint:
            self.hook = ctx.socket(zmq.PUB)
            self.hook.setsockopt(zmq.LINGER, 0)
            self.hook.set_hwm(config.hwm)
            self.hook.connect(config.hook_endpoint)
            log.info("Infera KV event hook connected to %s for dp_rank=%d", config.hook_endpoint, dp_rank)

    @property
    def replay_socket(self):
        return self._replay

    def publish(self, events):
        if not events:
            return  # ATOM publishes nothing for an empty step
        payload = encode_batch(events, self._dp_rank)
        seq = self._seq.to_bytes(8, "big")
        self._seq += 1
        sequenced = [self._topic, seq, payload]
        if self._config.behaviour == "offset":
            self._buffer.append((seq, payload))
            frames = sequenced
        else:  # ffdf3bb's own publisher
            frames = [self._topic, payload] if self._topic else [payload]
        for sock, out in ((self.socket, frames), (self.hook, sequenced)):
            if sock is None:
                continue
            try:
                sock.send_multipart(out, flags=zmq.NOBLOCK)
            except zmq.Again:
                pass  # ATOM drops on a full queue: events are advisory

    def serve_replay(self):
        """Answer one replay request ([identity, b'', start_seq]) with every buffered
        [seq, payload] >= start, then PR #1316's all-0xFF end marker and [oldest, latest]."""
        frames = self._replay.recv_multipart()
        identity, start = frames[0], int.from_bytes(frames[-1][:8].rjust(8, b"\0"), "big")
        for seq, payload in list(self._buffer):
            if int.from_bytes(seq, "big") >= start:
                self._replay.send_multipart([identity, b"", seq, payload])
        oldest = int.from_bytes(self._buffer[0][0], "big") if self._buffer else -1
        window = msgpack.packb([oldest, self._seq - 1])
        self._replay.send_multipart([identity, b"", REPLAY_END_SEQ, window])

    def close(self):
        self.socket.close(0)
        if self.hook is not None:
            self.hook.close(0)
        if self._replay is not None:
            self._replay.close(0)
